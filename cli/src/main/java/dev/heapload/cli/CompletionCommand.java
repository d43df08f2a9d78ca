package dev.heapload.cli;

import java.util.concurrent.Callable;

import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code heapload completion bash|zsh}: prints a shell completion script for heapload, made by picocli's
 * {@link AutoComplete} from the command model: subcommands, their options, option values with fixed choices and
 * the saved query names ({@code heapload query <TAB>}). The zsh script is the bash one behind zsh's
 * {@code bashcompinit}, as picocli documents (sourced, not autoloaded). {@code ./heapload install} puts both where the shells look.
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
    description = {"Prints a shell completion script (commands, options, saved query names).",
        "bash: source <(heapload completion bash)   zsh: source <(heapload completion zsh)"})
final class CompletionCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "SHELL", completionCandidates = Shells.class,
        description = "bash or zsh.")
    String shell;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (!shell.equals("bash") && !shell.equals("zsh")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "completion is for bash or zsh, not '"
                + shell + "'" + Suggestions.didYouMean(shell, java.util.List.of("bash", "zsh")));
        }
        String script = AutoComplete.bash("heapload", spec.root().commandLine());
        if (shell.equals("zsh")) {
            // sourced from ~/.zshrc: compinit only when the user's set-up has not run it already
            Streams.out(spec).print("# heapload completion for zsh (source it): picocli's bash script behind zsh's bashcompinit\n"
                + "(( $+functions[compdef] )) || { autoload -U +X compinit && compinit }\n"
                + "autoload -U +X bashcompinit && bashcompinit\n");
        }
        Streams.out(spec).print(script);
        Streams.out(spec).flush();
        return 0;
    }

    /** The shells a script is made for. */
    static final class Shells implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.List.of("bash", "zsh").iterator();
        }
    }
}

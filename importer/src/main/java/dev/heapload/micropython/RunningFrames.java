package dev.heapload.micropython;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The functions running at the dump, found by their {@code mp_code_state_t} (per MicroPython py/bc.h): on the C stack
 * (small frames, allocated there by {@code fun_bc_call}), on the heap (frames too big for the C stack: allocations of
 * type {@code code_state}) and inside generators ({@code mp_obj_gen_instance_t.code_state}). A code_state is told by
 * its content: {@code fun_bc} points at a bytecode function, {@code ip} into that function's bytecode, and
 * {@code n_state} equals what the bytecode's prelude ({@link BytecodePrelude}) says. Each frame is named
 * {@code NAME (FILE:LINE)} from the prelude, the module's qstr table and the instruction pointer, and names the words of
 * its {@code state[]} (locals by argument name or {@code local #N}, the live value stack {@code stack[k]}) and of its
 * exception stack ({@code exc_stack[i].prev_exc}); with debug info, the stack words holding an nlr buffer's
 * {@code ret_val} (the chain from {@code mp_state_ctx.thread.nlr_top}, py/nlr.h) are named too.
 */
final class RunningFrames {

    /** What the frames need of the reader's allocations. */
    interface Heap {
        /** Number of allocations. */
        int count();

        /** The allocation whose head block is at {@code address}, or -1. */
        int headAllocation(long address);

        /** Head address of allocation {@code a}. */
        long address(int a);

        /** Blocks of allocation {@code a}. */
        int blocks(int a);

        /** Type of allocation {@code a} ({@code null} while not typed yet). */
        String type(int a);
    }

    private final MemoryImage mem;
    private final int w;
    private final int bpb;
    private final ObjectLayouts layouts;
    private final QstrPools qstrPools;
    private final boolean legacyQstrs;
    private final Heap heap;
    /** Running frames: by the address of their code_state (heap, generator, C stack). */
    private final java.util.TreeMap<Long, Frame> frames = new java.util.TreeMap<>();
    private final Map<Integer, BytecodePrelude> preludes = new HashMap<>();
    /** Stack addresses of the nlr buffers' {@code ret_val} words, by their place in the chain (0: nlr_top). */
    private final Map<Long, Integer> nlrReturnValues = new HashMap<>();

    RunningFrames(MemoryImage mem, int bytesPerBlock, ObjectLayouts layouts, QstrPools qstrs, Heap heap) {
        this.mem = mem;
        this.w = mem.wordSize();
        this.bpb = bytesPerBlock;
        this.layouts = layouts;
        this.qstrPools = qstrs;
        this.legacyQstrs = qstrs.legacyFormat();
        this.heap = heap;
    }

    /** True when the C stack word at {@code at} holds an nlr buffer's {@code ret_val}. */
    boolean isNlrReturnValue(long at) {
        return nlrReturnValues.containsKey(at);
    }

    /** The function (allocation index) of a code_state at {@code at} when the words there make one, else -1. */
    int codeStateFunction(long at, long bytes) {
        ObjectLayouts.Struct cs = layouts.struct("mp_code_state_t");
        int funOff = cs.offsetOf("fun_bc");
        int ipOff = cs.offsetOf("ip");
        int nStateOff = cs.offsetOf("n_state");
        int stateOff = cs.offsetOf("state[]");
        if (funOff < 0 || ipOff < 0 || nStateOff < 0 || stateOff < 0 || bytes < stateOff + w) {
            return -1;
        }
        int f = heap.headAllocation(mem.word(at + funOff));
        if (f < 0 || !("function".equals(heap.type(f)) || "generator_function".equals(heap.type(f)))) {
            return -1;
        }
        int code = heap.headAllocation(mem.word(heap.address(f) + bytecodeOffset()));
        long ip = mem.word(at + ipOff);
        if (code < 0 || ip < heap.address(code) || ip >= heap.address(code) + (long) heap.blocks(code) * bpb) {
            return -1;
        }
        int nState = mem.u16(at + nStateOff);
        BytecodePrelude p = prelude(f);
        if (nState <= 0 || stateOff + (long) nState * w > bytes || (p != null && p.nState() != nState)) {
            return -1;
        }
        return f;
    }

    boolean looksLikeCodeState(long at, long bytes) {
        return codeStateFunction(at, bytes) >= 0;
    }

    int bytecodeOffset() {
        ObjectLayouts.Struct fun = layouts.struct("mp_obj_fun_bc_t");
        int off = fun == null ? -1 : fun.offsetOf("bytecode");
        return off >= 0 ? off : (legacyQstrs ? 2 : 3) * w;
    }


    /**
     * One running function: its code_state's words ({@code [start, end)}: header, {@code state[n_state]}, the
     * exception stack), what its bytecode tells, and where it stands.
     */
    record Frame(long start, long state, int nState, int nExcStack, long sp, int excSpIdx, String text,
                         List<String> argNames, ObjectLayouts.Struct header, long limit) {
        /** The end of its words: the exception stack's, or the end of the memory holding it when that comes first. */
        long end(int w) {
            return Math.min(limit, state + (long) nState * w + (long) nExcStack * 3 * w);
        }
    }

    /** The prelude of function {@code f}'s bytecode (cached), or {@code null}. */
    private BytecodePrelude prelude(int f) {
        if (preludes.containsKey(f)) {
            return preludes.get(f);
        }
        BytecodePrelude p = null;
        int code = heap.headAllocation(mem.word(heap.address(f) + bytecodeOffset()));
        if (code >= 0 && qstrPools != null) {
            byte[] bytes = mem.bytes(heap.address(code), (int) Math.min((long) heap.blocks(code) * bpb, 1 << 16));
            long qstrTable = -1;
            if (!legacyQstrs) {
                long context = mem.word(heap.address(f) + w);
                long table = heap.headAllocation(context) >= 0 ? mem.word(context + 2L * w) : 0;
                qstrTable = heap.headAllocation(table) >= 0 ? table : -1;
            }
            long table = qstrTable;
            p = BytecodePrelude.decode(bytes, legacyQstrs, v -> {
                if (legacyQstrs) {
                    return v;
                }
                if (table < 0) {
                    return -1L;
                }
                int at = heap.headAllocation(table);
                return v * 2 + 2 <= (long) heap.blocks(at) * bpb ? (long) mem.u16(table + v * 2) : -1L;
            }, q -> qstrPools.display(q));
            if (p != null && legacyQstrs && p.nPosArgs() + p.nKwonlyArgs() > 0) {
                // v1.18: the argument names are the first entries of the const table, as qstr objects
                long constTable = mem.word(heap.address(f) + 3L * w);
                List<String> args = new ArrayList<>();
                for (int i = 0; i < p.nPosArgs() + p.nKwonlyArgs() && mem.isMapped(constTable + (long) i * w, w); i++) {
                    long v = mem.word(constTable + (long) i * w);
                    args.add((v & 7) == 2 ? qstrPools.display(v >>> 3) : "arg " + i);
                }
                p = new BytecodePrelude(p.nState(), p.nExcStack(), p.nPosArgs(), p.nKwonlyArgs(), p.name(), p.file(),
                    args, p.lineInfo(), p.lineInfoTop(), p.opcodes());
            }
        }
        preludes.put(f, p);
        return p;
    }

    /** The frame of the code_state at {@code at} (function {@code f}), or {@code null}. */
    private Frame frame(long at, int f, ObjectLayouts.Struct header, int stateOff, long limit) {
        BytecodePrelude p = prelude(f);
        ObjectLayouts.Struct cs = layouts.struct("mp_code_state_t");
        int base = cs.offsetOf("fun_bc");
        long start = at - base;
        int nState = mem.u16(start + cs.offsetOf("n_state"));
        int excSpIdx = mem.u16(start + cs.offsetOf("exc_sp_idx"));
        long ip = mem.word(start + cs.offsetOf("ip"));
        long sp = mem.word(start + cs.offsetOf("sp"));
        String name = p == null || p.name() == null ? "?" : p.name();
        String where = "";
        if (p != null) {
            int code = heap.headAllocation(mem.word(heap.address(f) + bytecodeOffset()));
            byte[] bytes = mem.bytes(heap.address(code), (int) Math.min((long) heap.blocks(code) * bpb, 1 << 16));
            long offset = ip - heap.address(code) - p.opcodes() - 1;
            String file = p.file();
            if (file == null && !legacyQstrs) {
                file = moduleFile(f);
            }
            where = " (" + (file == null ? "" : file + ":") + p.line(bytes, Math.max(0, offset)) + ")";
        }
        return new Frame(at, at - base + stateOff, nState, p == null ? 0 : p.nExcStack(), sp, excSpIdx, name + where,
            p == null ? List.of() : p.argNames(), header, limit);
    }

    /** v1.19+: the source file of a function's module, the first entry of its qstr table. */
    private String moduleFile(int f) {
        long context = mem.word(heap.address(f) + w);
        if (heap.headAllocation(context) < 0) {
            return null;
        }
        long table = mem.word(context + 2L * w);
        return heap.headAllocation(table) >= 0 ? qstrPools.display(mem.u16(table)) : null;
    }

    /** The frames held in heap allocations: code_states and generators. */
    void onHeap() {
        ObjectLayouts.Struct cs = layouts.struct("mp_code_state_t");
        ObjectLayouts.Struct gen = layouts.struct("mp_obj_gen_instance_t");
        for (int a = 0; a < heap.count(); a++) {
            long bytes = (long) heap.blocks(a) * bpb;
            if ("code_state".equals(heap.type(a))) {
                int f = codeStateFunction(heap.address(a), bytes);
                if (f >= 0) {
                    frames.put(heap.address(a), frame(heap.address(a), f, cs, cs.offsetOf("state[]"), heap.address(a) + bytes));
                }
            } else if ("generator".equals(heap.type(a)) && gen != null) {
                int csAt = gen.offsetOf("code_state.fun_bc");
                int stateAt = gen.offsetOf("code_state.state[]");
                if (csAt < 0 || stateAt < 0) {
                    continue;
                }
                int f = codeStateFunction(heap.address(a) + csAt, bytes - csAt);
                if (f >= 0) {
                    frames.put(heap.address(a) + csAt, frame(heap.address(a) + csAt, f, gen, stateAt - csAt, heap.address(a) + bytes));
                }
            }
        }
    }

    /** The code_states on the C stack (small frames are allocated there), and the nlr chain. */
    void onStack(long[] stack, long[] ctxWords, ObjectLayouts.Struct ctxLayout) {
        ObjectLayouts.Struct cs = layouts.struct("mp_code_state_t");
        int stateOff = cs.offsetOf("state[]");
        for (long at = stack[0]; at + stateOff <= stack[1]; at += w) {
            int f = codeStateFunction(at, stack[1] - at);
            if (f >= 0) {
                Frame fr = frame(at, f, cs, stateOff, stack[1]);
                frames.put(at, fr);
                at = Math.max(at, fr.end(w) - w);
            }
        }
        if (ctxLayout != null) {
            int nlrTop = ctxLayout.offsetOf("thread.nlr_top");
            ObjectLayouts.Struct nlr = layouts.struct("nlr_buf_t");
            int retVal = nlr == null ? w : nlr.offsetOf("ret_val");
            long buf = nlrTop >= 0 && nlrTop / w < ctxWords.length ? ctxWords[nlrTop / w] : 0;
            for (int i = 0; i < 256 && buf >= stack[0] && buf + retVal + w <= stack[1]; i++) {
                nlrReturnValues.put(buf + retVal, i);
                long prev = mem.word(buf);
                if (prev <= buf) {
                    break;
                }
                buf = prev;
            }
        }
    }


    /** The frame whose code_state words hold {@code address}, or {@code null}. */
    Frame frameAt(long address) {
        Map.Entry<Long, Frame> e = frames.floorEntry(address);
        return e != null && address < e.getValue().end(w) ? e.getValue() : null;
    }

    /** A word of a frame's {@code state[]} or exception stack: {kind, name, frame}. */
    String[] slotName(Frame fr, long at) {
        long k = (at - fr.state()) / w;
        if (k < fr.nState()) {
            long top = (fr.sp() - fr.state()) / w;
            if (fr.sp() >= fr.state() - w && k <= top) {
                return new String[] {"stack", "stack[" + k + "]", fr.text()};
            }
            long local = fr.nState() - 1 - k;
            return new String[] {"local", local < fr.argNames().size() ? fr.argNames().get((int) local)
                : "local #" + local, fr.text()};
        }
        long e = k - fr.nState();
        String[] fields = {"handler", "val_sp", "prev_exc"};
        return new String[] {"field", "exc_stack[" + (e / 3) + "]." + fields[(int) (e % 3)], fr.text()};
    }

    /** A root on the C stack: a frame's slot, an nlr buffer's return value, a heap frame, or {@code stack+OFFSET}. */
    String stackRootName(long at, long stackStart, int target) {
        Frame fr = frameAt(at);
        if (fr != null) {
            if (at >= fr.state()) {
                String[] n = slotName(fr, at);
                return "frame " + fr.text() + " " + (n[0].equals("field") || n[1].startsWith("local #") ? ""
                    : n[0] + " ") + n[1];
            }
            String f = fr.header().wordName(at - fr.start(), w);
            return "frame " + fr.text() + " " + (f == null ? "+" + (at - fr.start()) : f);
        }
        Integer nlr = nlrReturnValues.get(at);
        if (nlr != null) {
            return "nlr_buf[" + nlr + "].ret_val (stack+" + (at - stackStart) + ")";
        }
        Frame onHeap = frames.get(heap.address(target));
        if (onHeap != null && "code_state".equals(heap.type(target))) {
            return "frame " + onHeap.text() + " (code_state, stack+" + (at - stackStart) + ")";
        }
        return "stack+" + (at - stackStart);
    }
}

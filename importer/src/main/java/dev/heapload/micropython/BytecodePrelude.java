package dev.heapload.micropython;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * The prelude of a bytecode function, per MicroPython py/bc.h (v1.12 and later): the signature (a variable-length
 * encoding of {@code n_state - 1}, {@code n_exc_stack}, scope flags, positional, keyword-only and default argument
 * counts, bit-interleaved as {@code xSSSSEAA [xFSSKAED ...]}), the prelude size ({@code n_info}, {@code n_cell} as
 * {@code xIIIIIIC ...}), then the source info section: the function's simple name and (v1.19+) its argument names as
 * variable-length qstrs (an index into the module's qstr table when the build has one, else the qstr itself), or
 * (v1.18) the simple name and the source file, followed by the line-number table ({@code 0LLBBBBB} or
 * {@code 1LLLBBBB LLLLLLLL}: bytecode and line increments).
 *
 * @param nState      entries of the value stack plus locals ({@code code_state.n_state})
 * @param nExcStack   entries of the exception stack
 * @param nPosArgs    positional arguments
 * @param nKwonlyArgs keyword-only arguments
 * @param name        the function's name, or {@code null} when its qstr cannot be read
 * @param file        the source file, or {@code null}
 * @param argNames    the argument names known (v1.19+: from the prelude; v1.18: from the const table), in order
 * @param lineInfo    offset of the line-number table in the bytecode
 * @param lineInfoTop offset of its end
 * @param opcodes     offset of the first opcode
 */
public record BytecodePrelude(int nState, int nExcStack, int nPosArgs, int nKwonlyArgs, String name, String file,
                              List<String> argNames, int lineInfo, int lineInfoTop, int opcodes) {

    /**
     * Decodes the prelude at the start of {@code code}.
     *
     * @param code      the bytecode bytes (the allocation holding it)
     * @param legacy    v1.18 layout (simple name and source file, argument names elsewhere)
     * @param qstrOf    the qstr a variable-length value in the source info stands for (an index into the qstr table,
     *                  or the qstr itself), or -1 when not known
     * @param qstrText  the text of a qstr
     * @return the prelude, or {@code null} when the bytes cannot be a prelude
     */
    public static BytecodePrelude decode(byte[] code, boolean legacy, LongFunction<Long> qstrOf,
                                         LongFunction<String> qstrText) {
        if (code == null || code.length < 3) {
            return null;
        }
        int[] at = {0};
        int z = code[at[0]++] & 0xff;
        long s = (z >> 3) & 0xf;
        long e = (z >> 2) & 1;
        long a = z & 3;
        long k = 0;
        for (int n = 0; (z & 0x80) != 0; n++) {
            if (at[0] >= code.length || n > 8) {
                return null;
            }
            z = code[at[0]++] & 0xff;
            s |= (long) (z & 0x30) << (2 * n);
            e |= (long) (z & 0x02) << n;
            a |= (long) (z & 0x04) << n;
            k |= (long) ((z & 0x08) >> 3) << n;
        }
        s += 1;
        long info = 0;
        long cell = 0;
        for (int n = 0;; n++) {
            if (at[0] >= code.length || n > 8) {
                return null;
            }
            z = code[at[0]++] & 0xff;
            cell |= (long) (z & 1) << n;
            info |= (long) ((z & 0x7e) >> 1) << (6 * n);
            if ((z & 0x80) == 0) {
                break;
            }
        }
        int infoStart = at[0];
        long top = infoStart + info;
        if (s > 0xffff || info == 0 || top + cell > code.length) {
            return null;
        }
        String name = qstr(code, at, qstrOf, qstrText);
        String file = null;
        List<String> args = new ArrayList<>();
        if (legacy) {
            file = qstr(code, at, qstrOf, qstrText);
        } else {
            for (long i = 0; i < a + k && at[0] < top; i++) {
                String arg = qstr(code, at, qstrOf, qstrText);
                args.add(arg == null ? "arg " + i : arg);
            }
        }
        if (at[0] > top) {
            return null;
        }
        return new BytecodePrelude((int) s, (int) e, (int) a, (int) k, name, file, args, at[0], (int) top,
            (int) (top + cell));
    }

    private static String qstr(byte[] code, int[] at, LongFunction<Long> qstrOf, LongFunction<String> qstrText) {
        long v = 0;
        int b;
        do {
            if (at[0] >= code.length) {
                return null;
            }
            b = code[at[0]++] & 0xff;
            v = (v << 7) | (b & 0x7f);
        } while ((b & 0x80) != 0);
        Long q = qstrOf.apply(v);
        return q == null || q < 0 ? null : qstrText.apply(q);
    }

    /**
     * The source line of the instruction at {@code bytecodeOffset} (from the first opcode), per
     * {@code mp_bytecode_get_source_line}: 1 plus the line increments of the entries it lies past.
     */
    public int line(byte[] code, long bytecodeOffset) {
        int line = 1;
        int at = lineInfo;
        long offset = bytecodeOffset;
        while (at < lineInfoTop && at < code.length) {
            int c = code[at] & 0xff;
            int b;
            int l;
            if ((c & 0x80) == 0) {
                b = c & 0x1f;
                l = c >> 5;
                at += 1;
            } else {
                if (at + 1 >= code.length) {
                    break;
                }
                b = c & 0xf;
                l = ((c << 4) & 0x700) | (code[at + 1] & 0xff);
                at += 2;
            }
            if (offset >= b) {
                offset -= b;
                line += l;
            } else {
                break;
            }
        }
        return line;
    }
}

#!/usr/bin/env python3
"""Expected values for LuauDumpReaderTest, computed from the dump files without the Java reader.

Reads every before/after file of shared/testdata/luau/*/ line by line with regular expressions (the
VM writes one record per line, spec section 2), so it also works on the invalid-JSON edge-* files:
  * per-type object counts ("<addr>":, lines count as "vector"), the sentinel "0" excluded;
  * the sum of the records' "size";
  * the number of addresses inside records (references; the record's own key excluded);
  * stats.size and each category's id, raw name bytes (decoded as UTF-8, else Latin-1) and size,
    as printed, plus the value corrected by adding 2^32 when printed negative;
  * the number of weak references by the rule of spec section 8: a table whose metatable has a
    "__mode" string key with a string value; 'k' -> its keys, 'v' -> its hash values and array
    elements are weak, except references to strings.
Prints Java lines to paste into the test.  Usage: luau_expected.py <shared>/testdata/luau
"""
import gzip
import os
import re
import sys

RECORD = re.compile(rb'^"([^"]+)":\{"type":"(\w+)","cat":(\d+),"size":(\d+)')
EMPTY = re.compile(rb'^"([^"]+)":,$')
ADDRESS = re.compile(rb'"0x[0-9a-f]+"')
PAIRS = re.compile(rb'"pairs":\[([^\]]*)\]')
ARRAY = re.compile(rb'"array":\[([^\]]*)\]')
METATABLE = re.compile(rb'"metatable":"([^"]+)"')
DATA = re.compile(rb'"data":"(.*)"\},?$')
STATS_SIZE = re.compile(rb'^"size":(-?\d+),$')
CATEGORY = re.compile(rb'^"(\d+)":\{(?:"name":"(.*)", )?"size":(-?\d+)\},?$')


def text(raw):
    try:
        return raw.decode('utf-8')
    except UnicodeDecodeError:
        return raw.decode('latin-1')


def java_string(s):
    out = []
    for ch in s:
        if ch in '"\\':
            out.append('\\' + ch)
        elif ord(ch) < 0x20 or ord(ch) > 0x7e:
            out.append('\\u%04x' % ord(ch))
        else:
            out.append(ch)
    return '"' + ''.join(out) + '"'


def analyse(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rb') as f:
        lines = f.read().split(b'\n')
    types, size_sum, refs = {}, 0, 0
    tables, strings = {}, {}
    stats_size, cats = None, []
    section = 'head'
    for line in lines:
        if line == b'{"objects":{':
            section = 'objects'
            continue
        if line.startswith(b'},"roots":{'):
            section = 'roots'
            continue
        if line.startswith(b'"categories":{'):
            section = 'categories'
            continue
        if section == 'objects':
            m = RECORD.match(line)
            if m:
                if m.group(1) == b'0':
                    continue
                t = m.group(2).decode()
                types[t] = types.get(t, 0) + 1
                size_sum += int(m.group(4))
                refs += len(ADDRESS.findall(line)) - 1
                addr = m.group(1)
                if t == 'string':
                    strings[addr] = DATA.search(line).group(1)
                elif t == 'table':
                    elements = lambda mm: [] if mm is None or not mm.group(1) else [
                        None if e == b'null' else e.strip(b'"') for e in mm.group(1).split(b',')]
                    mt = METATABLE.search(line)
                    tables[addr] = (elements(PAIRS.search(line)), elements(ARRAY.search(line)),
                                    mt.group(1) if mt else None)
            elif EMPTY.match(line):
                types['vector'] = types.get('vector', 0) + 1
            else:
                raise SystemExit('%s: unexpected object line %r' % (path, line[:80]))
        elif section == 'roots':
            m = STATS_SIZE.match(line)
            if m:
                stats_size = int(m.group(1))
        elif section == 'categories':
            m = CATEGORY.match(line)
            if m:
                name = None if m.group(2) is None else text(m.group(2))
                cats.append((int(m.group(1)), name, int(m.group(3))))
    weak = 0
    for pairs, array, mt in tables.values():
        if mt is None or mt not in tables:
            continue
        mode = b''
        mpairs = tables[mt][0]
        for i in range(0, len(mpairs), 2):
            if strings.get(mpairs[i]) == b'__mode' and mpairs[i + 1] in strings:
                mode = strings[mpairs[i + 1]]
        weak_key, weak_value = b'k' in mode, b'v' in mode
        for i in range(0, len(pairs), 2):
            k, v = pairs[i], pairs[i + 1]
            weak += weak_key and k is not None and k not in strings
            weak += weak_value and v is not None and v not in strings
        weak += sum(1 for a in array if weak_value and a is not None and a not in strings)
    return types, size_sum, refs, stats_size, cats, weak


def main():
    root = sys.argv[1]
    for case in sorted(os.listdir(root)):
        d = os.path.join(root, case)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not (name.endswith('.json') or name.endswith('.json.gz')):
                continue
            types, size_sum, refs, stats_size, cats, weak = analyse(os.path.join(d, name))
            fix = lambda n: n + 2 ** 32 if n < 0 else n
            type_list = ', '.join('"%s", %d' % (t, types[t]) for t in sorted(types))
            cat_list = ', '.join('cat(%d, %s, %dL)' % (i, 'null' if n is None else java_string(n), fix(s))
                                 for i, n, s in cats)
            print('            expect("%s/%s", %d, %dL, %d, %d, %dL, types(%s), List.of(%s)),'
                  % (case, name, sum(types.values()), size_sum, refs, weak, fix(stats_size), type_list, cat_list))


if __name__ == '__main__':
    main()

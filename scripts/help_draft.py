#!/usr/bin/env python3
"""help_draft.py -- draft help entries of native exports from their bindings.

  python3 scripts/help_draft.py MODULE_FILES... --names names.txt > draft.lua

Reads the luaL_Reg tables of the given lua_*.c files, finds each exported C
function, its comment, the named-argument key list it checks (tide_lua_opts)
and every tide_opt_* call in it (and in the static helpers it calls in the same
file): key, kind, default, range.  Prints Lua help entries (lua/tide/help/
format) to be reviewed and completed by hand (units, what it does, the paper).
names.txt lists "owner<TAB>name" pairs: owner "tide.liquid" (module
function) or "tide.Particles" (method).
"""
import re, sys

def strip_comments(s):
    return re.sub(r'/\*.*?\*/', lambda m: ' ' * len(m.group(0)), s, flags=re.S)

def c_string_list(body):
    return re.findall(r'"([^"]*)"', body)

def find_body(src, start):
    i = src.index('{', start)
    depth = 0
    for j in range(i, len(src)):
        if src[j] == '{': depth += 1
        elif src[j] == '}':
            depth -= 1
            if depth == 0: return src[i:j + 1]
    return src[i:]

def split_args(s):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch in '([{': depth += 1
        if ch in ')]}': depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur.strip()); cur = ''
        else:
            cur += ch
    if cur.strip(): out.append(cur.strip())
    return out

def call_args(body, pos):
    i = body.index('(', pos)
    depth = 0
    for j in range(i, len(body)):
        if body[j] == '(': depth += 1
        elif body[j] == ')':
            depth -= 1
            if depth == 0: return split_args(body[i + 1:j])
    return []

def num(s):
    s = s.strip()
    s = s.replace('HUGE_VAL', 'inf').replace('INT_MAX', '2^31-1').replace('LUA_MAXINTEGER', 'max')
    s = re.sub(r'\(lua_Integer\)|\(double\)|\(int\)', '', s)
    return s

class File:
    def __init__(self, path):
        self.path = path
        self.raw = open(path).read()
        self.src = strip_comments(self.raw)
        self.keys = {}
        for m in re.finditer(r'static const char \*const (\w+)\[\]\s*=\s*\{(.*?)\};', self.raw, re.S):
            self.keys[m.group(1)] = [k for k in c_string_list(m.group(2))]
        self.funcs = {}
        for m in re.finditer(r'^static (?:int|[\w ]+\*?) ?\**(\w+)\((lua_State|tide_opts)[^)]*\)\s*\{', self.src, re.M):
            self.funcs[m.group(1)] = m.start()
        self.regs = {}
        for m in re.finditer(r'luaL_Reg (\w+)\[\]\s*=\s*\{(.*?)\};', self.src, re.S):
            self.regs[m.group(1)] = re.findall(r'\{"(\w+)",\s*(\w+)\}', m.group(2))

    def comment_before(self, fname):
        pos = self.funcs.get(fname)
        if pos is None: return ''
        head = self.raw[:pos].rstrip()
        if head.endswith('*/'):
            k = head.rfind('/*')
            c = head[k + 2:-2]
            lines = [re.sub(r'^\s*\* ?', '', l).rstrip() for l in c.split('\n')]
            return ' '.join(l.strip() for l in lines if l.strip())
        return ''

    def body(self, fname):
        pos = self.funcs.get(fname)
        return find_body(self.src, pos) if pos is not None else ''

    def options(self, fname, seen=None):
        seen = seen or set()
        if fname in seen: return [], None
        seen.add(fname)
        b = self.body(fname)
        opts, keylist = [], None
        m = re.search(r'tide_lua_(?:opt)?opts\(L,\s*[^,]+,\s*[^,]+,\s*(\w+)\)', b)
        if m and m.group(1) in self.keys: keylist = self.keys[m.group(1)]
        for m in re.finditer(r'tide_opt_(\w+)\(', b):
            kind = m.group(1)
            if kind == 'has': continue
            a = call_args(b, m.end() - 1)
            if len(a) < 2 or not a[1].startswith('"'): continue
            key = a[1].strip('"')
            d = {'key': key, 'kind': kind}
            if kind in ('num', 'int') and len(a) >= 5: d.update(default=num(a[2]), lo=num(a[3]), hi=num(a[4]))
            if kind in ('reqnum',) and len(a) >= 4: d.update(lo=num(a[2]), hi=num(a[3]))
            if kind == 'bool' and len(a) >= 3: d['default'] = 'true' if a[2].strip() not in ('0', 'false') else 'false'
            if kind == 'str' and len(a) >= 3: d['default'] = a[2].strip()
            if kind == 'choice' and len(a) >= 4:
                d['default'] = a[2].strip()
                ch = a[3].strip()
                if ch in self.keys: d['choices'] = self.keys[ch]
            if kind == 'vec' and len(a) >= 4: d.update(nmin=a[2], nmax=a[3])
            if kind in ('obj', 'reqobj') and len(a) >= 3: d['tname'] = a[2]
            opts.append(d)
        for m in re.finditer(r'tide_lua_fileio_color\(&\w+,\s*"(\w+)"', b):
            opts.append({'key': m.group(1), 'kind': 'color'})
        for m in re.finditer(r'\b(\w+)\((?:L|o|&o|&mo)\b', b):
            callee = m.group(1)
            if callee in self.funcs and callee != fname:
                o2, k2 = self.options(callee, seen)
                opts += o2
                keylist = keylist or k2
        return opts, keylist

TYPES = {'TIDE_GRID_T': 'tide.Grid', 'TIDE_MAC_T': 'tide.Mac', 'TIDE_ARRAY_T': 'tide.Array',
         'TIDE_SHAPE_T': 'tide.Shape', 'TIDE_TETMESH_T': 'tide.TetMesh', 'TIDE_PARTICLES_T': 'tide.Particles',
         'TIDE_MATRIX_T': 'tide.Matrix', 'TIDE_FACTOR_T': 'tide.Factor'}

def describe(d):
    k = d['kind']
    if k in ('num', 'reqnum'):
        rng = ''
        if 'lo' in d:
            lo, hi = d['lo'], d['hi']
            rng = 'number in [%s, %s]' % (lo, hi)
            if hi in ('inf',) and lo in ('-inf', '-HUGE_VAL', '- inf'): rng = 'number'
            elif hi == 'inf': rng = 'number >= %s' % lo
        t = rng or 'number'
        return t, ('required' if k == 'reqnum' else d.get('default', ''))
    if k == 'int':
        return 'integer in %s..%s' % (d.get('lo'), d.get('hi')), d.get('default', '')
    if k == 'bool': return 'boolean', d.get('default', '')
    if k == 'str': return 'string', d.get('default', '').replace('NULL', 'none')
    if k == 'choice':
        ch = d.get('choices')
        return (' | '.join('"%s"' % c for c in ch) if ch else 'string'), d.get('default', '')
    if k in ('array',): return 'tide.Array', 'none'
    if k in ('reqarray',): return 'tide.Array', 'required'
    if k in ('obj',): return TYPES.get(d.get('tname', ''), d.get('tname', 'object')), 'none'
    if k in ('reqobj',): return TYPES.get(d.get('tname', ''), d.get('tname', 'object')), 'required'
    if k == 'vec':
        n = d['nmin'] if d['nmin'] == d['nmax'] else '%s..%s' % (d['nmin'], d['nmax'])
        return 'list of %s numbers' % n, 'none'
    if k == 'sides': return 'side name or list ("x-", "x+", ...)', 'none'
    if k == 'color': return 'colour {r, g, b} in [0, 1]', ''
    return k, ''

def lua_str(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'

MACROS = {}

def load_macros(paths):
    import glob
    for p in paths + glob.glob('runtime/*.h') + glob.glob('modules/*/*.h') + glob.glob('modules/*/*.c'):
        for m in re.finditer(r'#define (\w+) "(tide\.[\w.]+)"', open(p).read()):
            MACROS[m.group(1)] = m.group(2)
        for m in re.finditer(r'#define (\w+) (TIDE_\w+_T)\b', open(p).read()):
            MACROS[m.group(1)] = m.group(2)
    for k, v in list(MACROS.items()):
        if v in MACROS: MACROS[k] = MACROS[v]

def reg_owner(f, reg):
    """the type or module a luaL_Reg array belongs to"""
    m = re.search(r'tide_lua_newtype\(L,\s*(\w+|"[^"]+"),\s*' + reg + r'\b', f.src)
    if m:
        t = m.group(1)
        return t.strip('"') if t.startswith('"') else MACROS.get(t, t)
    if reg in ('step_methods', 'ckpt_methods', 'static_methods'): return 'tide.TetMesh'
    if reg == 'shape_methods': return 'tide.Shape'
    if reg == 'shape_funcs': return 'tide.shape'
    if 'meta' in reg: return None
    mm = re.search(r'modules/(\w+)/', f.path)
    if mm: return 'tide.' + mm.group(1)
    if 'lua_array' in f.path: return 'tide.array'
    if 'lua_tide' in f.path: return 'tide'
    return None

def split_comment(c):
    """'sig -> returns: what it does' / 'sig: does' -> (sig, does, returns)"""
    c = c.strip()
    if not c: return '', '', ''
    # the signature ends at the first ': ' outside brackets after a call
    depth, cut = 0, None
    for i, ch in enumerate(c):
        if ch in '([{': depth += 1
        elif ch in ')]}': depth -= 1
        elif depth == 0 and ch in ':;' and i + 1 < len(c) and c[i + 1] == ' ' and ('(' in c[:i] or '{' in c[:i]):
            cut = i; break
    sig, does = (c[:cut].strip(), c[cut + 1:].strip()) if cut else (c, '')
    rets = ''
    if '->' in sig:
        rets = sig.split('->', 1)[1].strip()
    if does and does[0].islower(): does = does[0].upper() + does[1:]
    if does and not does.endswith('.'): does += '.'
    return sig, does, rets or ('nothing' if sig else '')

def main():
    args = sys.argv[1:]
    names_file = args[args.index('--names') + 1]
    files = [File(p) for p in args if p.endswith('.c')]
    load_macros([f.path for f in files])
    wanted = [l.rstrip('\n').split('\t') for l in open(names_file) if l.strip()]
    out = []
    for owner, name in wanted:
        method = owner.split('.')[-1][:1].isupper()
        full = owner + (':' if method else '.') + name
        cands = []
        for f in files:
            for reg, items in f.regs.items():
                if reg_owner(f, reg) != owner: continue
                for n, c in items:
                    if n == name: cands.append((True, f, c))
        if not cands:
            out.append('  -- %s: no binding found\n' % full)
            continue
        _, f, cfun = cands[0]
        comment = f.comment_before(cfun)
        opts, keylist = f.options(cfun)
        seen, rows = set(), []
        for d in opts:
            if d['key'] in seen: continue
            seen.add(d['key'])
            t, dflt = describe(d)
            rows.append('      { %s, %s, %s, "" },' % (lua_str(d['key']), lua_str(t), lua_str(str(dflt))))
        for k in (keylist or []):
            if k not in seen:
                rows.append('      { %s, "", "", "" },' % lua_str(k))
        sig, does, rets = split_comment(comment)
        out.append('  [%s] = {\n    sig = %s,\n    does = %s,\n    args = {\n%s\n    },\n    returns = %s,\n    see = see,\n  },\n'
                   % (lua_str(full), lua_str(sig), lua_str(does), '\n'.join(rows), lua_str(rets)))
    print(''.join(out))

main()

"""A slow, literal implementation of SPEC §2 used to check ``sitar.cgd.decompose``.

Plain Python lists and loops, recursion exactly as the spec words it; no numpy, no shortcuts.
"""

from __future__ import annotations


def _edit_prefix(u, v):
    nu, nv = len(u), len(v)
    e = [[0] * (nv + 1) for _ in range(nu + 1)]
    for a in range(nu + 1):
        for b in range(nv + 1):
            if a == 0:
                e[a][b] = b
            elif b == 0:
                e[a][b] = a
            else:
                e[a][b] = min(
                    e[a - 1][b] + 1,
                    e[a][b - 1] + 1,
                    e[a - 1][b - 1] + (0 if u[a - 1] == v[b - 1] else 1),
                )
    return e


def _edit_suffix(u, v):
    nu, nv = len(u), len(v)
    e = [[0] * (nv + 1) for _ in range(nu + 1)]
    for a in range(nu, -1, -1):
        for b in range(nv, -1, -1):
            if a == nu:
                e[a][b] = nv - b
            elif b == nv:
                e[a][b] = nu - a
            else:
                e[a][b] = min(
                    e[a + 1][b] + 1,
                    e[a][b + 1] + 1,
                    e[a + 1][b + 1] + (0 if u[a] == v[b] else 1),
                )
    return e


def _region(u, v, off_u, off_v, out):
    nu, nv = len(u), len(v)
    # 1. match lengths
    L = [[0] * (nv + 1) for _ in range(nu + 1)]
    for p in range(nu - 1, -1, -1):
        for q in range(nv - 1, -1, -1):
            L[p][q] = 1 + L[p + 1][q + 1] if u[p] == v[q] else 0
    # 2. candidates
    cands = []
    for l_min in (2, 1):
        cands = [
            (p, q, L[p][q])
            for p in range(nu)
            for q in range(nv)
            if L[p][q] >= l_min and (p == 0 or q == 0 or u[p - 1] != v[q - 1])
        ]
        if cands:
            break
    # 3. order
    cands.sort(key=lambda c: (c[0], c[1], -c[2]))
    retained = []
    if cands:
        # 4. chain DP
        f, pred = [], []
        for i, (pi, qi, li) in enumerate(cands):
            best, arg = 0, None
            for j in range(len(cands)):
                pj, qj, lj = cands[j]
                if j < i and pj + lj <= pi and qj + lj <= qi and f[j] > best:
                    best, arg = f[j], j
            # j >= i can never precede i, but check literally over all j for safety
            for j in range(i, len(cands)):
                pj, qj, lj = cands[j]
                assert not (pj + lj <= pi and qj + lj <= qi)
            f.append(li + best)
            pred.append(arg)
        top = max(f)
        i = f.index(top)
        chain = []
        while i is not None:
            chain.append(cands[i])
            i = pred[i]
        chain.reverse()
        # 5. edit-distance filter
        ep, es = _edit_prefix(u, v), _edit_suffix(u, v)
        d = ep[nu][nv]
        for p0, q0, ell in chain:
            for k in range(ell):
                p, q = p0 + k, q0 + k
                if ep[p][q] + es[p + 1][q + 1] == d:
                    retained.append((p, q))
    if not retained:
        if nu or nv:
            out.append(((off_u, off_u + nu), (off_v, off_v + nv)))
        return
    # 6. anchor blocks
    blocks = []
    for p, q in retained:
        if blocks and blocks[-1][-1] == (p - 1, q - 1):
            blocks[-1].append((p, q))
        else:
            blocks.append([(p, q)])
    # 7. recurse
    pu, pv = 0, 0
    for block in blocks:
        (sp, sq), (ep_, eq) = block[0], block[-1]
        if sp > pu or sq > pv:
            _region(u[pu:sp], v[pv:sq], off_u + pu, off_v + pv, out)
        pu, pv = ep_ + 1, eq + 1
    if nu > pu or nv > pv:
        _region(u[pu:], v[pv:], off_u + pu, off_v + pv, out)


def reference_decompose(ref, hyp):
    """Atomic gaps as ``((rs, re), (hs, he))`` tuples, left to right."""
    out = []
    _region(list(ref), list(hyp), 0, 0, out)
    return out

"""A deliberately literal, slow transcription of the M² 3.2 lattice (`docs/reference-behaviour.md`, section
"M² lattice"), as a test oracle.

It follows the description step by step (full triple loop for transitive arcs, removal from the list being
iterated, Bellman–Ford passes over the whole edge list), so that the optimised `gecscore.pt_m2.lattice.Lattice` can be
compared with it on random inputs. Only for tiny inputs.
"""

from __future__ import annotations

from gecscore.pt_m2.lattice import GoldEdit, SysEdit


def _steps(src: list[str], hyp: list[str], sub_cost: int) -> dict:
    n, m = len(src), len(hyp)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    back: dict = {}
    for i in range(1, n + 1):
        d[i][0] = i
        back[(i, 0)] = [((i - 1, 0), ("del", i - 1, i, src[i - 1], "", 0))]
    for j in range(1, m + 1):
        d[0][j] = j
        back[(0, j)] = [((0, j - 1), ("ins", j - 1, j - 1, "", hyp[j - 1], 0))]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            same = src[i - 1] == hyp[j - 1]
            diagonal = ("noop", i - 1, i, src[i - 1], hyp[j - 1], 1) if same else \
                ("sub", i - 1, i, src[i - 1], hyp[j - 1], 0)
            options = [
                (d[i - 1][j - 1] + (0 if same else sub_cost), (i - 1, j - 1), diagonal),
                (d[i - 1][j] + 1, (i - 1, j), ("del", i - 1, i, src[i - 1], "", 0)),
                (d[i][j - 1] + 1, (i, j - 1), ("ins", i, i, "", hyp[j - 1], 0)),
            ]
            low = min(o[0] for o in options)
            d[i][j] = low
            back[(i, j)] = [(cell, step) for cost, cell, step in options if cost == low]
    arcs: dict = {}
    todo, done = [(n, m)], set()
    while todo:
        cell = todo.pop(0)
        if cell in done:
            continue
        done.add(cell)
        for prev, step in back.get(cell, []):
            arcs[(prev, cell)] = step
            todo.append(prev)
    return arcs


def _merge(a: tuple, b: tuple) -> tuple:
    kind = a[0] if a[0] == b[0] and a[0] in ("ins", "del", "noop") else "sub"
    orig = " ".join(x for x in (a[3], b[3]) if x)
    corr = " ".join(x for x in (a[4], b[4]) if x)
    return (kind, a[1], b[2], orig, corr, a[5] + b[5])


def _matches(step: tuple, g: GoldEdit) -> bool:
    return step[1] == g.start and step[2] == g.end and step[3] == g.orig and step[4] in g.corrections


def oracle_edit_sequence(source: list[str], hypothesis: list[str], gold: list[GoldEdit],
                         max_unchanged: int = 2) -> list[SysEdit]:
    """The edit sequence (right to left) that the described algorithm yields."""
    a1, a2 = _steps(source, hypothesis, 1), _steps(source, hypothesis, 2)
    edits = {**a1, **a2}
    V = sorted({c for arc in edits for c in arc} | {(0, 0)})
    E = sorted(list(a1) + list(a2))
    dist = {arc: 1 for arc in edits}
    for vk in V:
        for vi in V:
            if (vi, vk) not in edits:
                continue
            for vj in V:
                if (vk, vj) not in edits:
                    continue
                d = dist[(vi, vk)] + dist[(vk, vj)]
                if d < dist.get((vi, vj), float("inf")):
                    merged = _merge(edits[(vi, vk)], edits[(vk, vj)])
                    if merged[5] <= max_unchanged:
                        E.append((vi, vj))
                        dist[(vi, vj)] = d
                        edits[(vi, vj)] = merged
    for arc in E:  # removal while iterating, on purpose
        if edits[arc][0] == "noop" and dist[arc] > 1:
            E.remove(arc)
            dist[arc] = float("inf")
            del edits[arc]

    weight = dict(dist)
    groups: dict = {}
    for arc in E:
        groups.setdefault((edits[arc][1], edits[arc][2]), []).append(arc)
    golds: dict = {}
    for g in gold:
        golds.setdefault((g.start, g.end), []).append(g)
    for span in sorted(groups):
        group = sorted(groups[span])
        here = golds.get(span, [])
        if span[0] != span[1]:
            for arc in group:
                if any(_matches(edits[arc], g) for g in here):
                    weight[arc] = -len(E)
                elif edits[arc][0] != "noop":
                    weight[arc] += 0.001
            continue
        left, right, cur = 0, len(group) - 1, 0
        g_left, g_right = 0, len(here) - 1
        while left <= right:
            arc = group[cur]
            forward = cur == left
            order = list(range(g_left, g_right + 1))
            if not forward:
                order.reverse()
            found = None
            for k in order:
                if _matches(edits[arc], here[k]):
                    found = k
                    break
            if found is None:
                weight[arc] += 0.001
                if forward:
                    left, cur = left + 1, right
                else:
                    right, cur = right - 1, left
                continue
            weight[arc] = -len(E)
            if forward:
                g_left = found + 1
                left += 1
                while left < len(group) and group[left][0] != arc[1]:
                    weight[group[left]] += 0.001
                    left += 1
                cur = left
            else:
                g_right = found - 1
                right -= 1
                while right >= 0 and group[right][1] != arc[0]:
                    weight[group[right]] += 0.001
                    right -= 1
                cur = right

    best = {v: float("inf") for v in V}
    best[(0, 0)] = 0
    pred: dict = {}
    for _ in range(len(V) - 1):
        for arc in E:
            u, v = arc
            if best[u] + weight[arc] < best[v]:
                best[v] = best[u] + weight[arc]
                pred[v] = u
    seq = []
    v = V[-1]
    while v in pred:
        u = pred[v]
        step = edits[(u, v)]
        if step[0] != "noop":
            seq.append(SysEdit(step[1], step[2], step[3], step[4]))
        v = u
    return seq

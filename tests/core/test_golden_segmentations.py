"""Golden CGD segmentations: exact expected gaps for hand-checked pairs.

Each expected gap is ``(ref_start, ref_end, hyp_start, hyp_end, ref_text, hyp_text)`` with token
intervals half-open. The comment on a case says why the expectation holds under SPEC §2-3.
Consolidation uses the default (lexicon) analyzer, as users get it.
"""

from __future__ import annotations

import pytest

from sitar import segment, tokenize

REF27 = (
    "I haven’t approved the draft yet. The figures look right, but I still need to check the "
    "conclusion. Do not send it to the client until I approve it. Maya can keep working on the "
    "appendix in the meantime."
)
HYP27_C = REF27.replace("yet. The figures", "yet. Most of the figures")
HYP27_F = REF27.replace(
    "Do not send it to the client until", "You can send it to the client before"
)
HYP27_K = (
    "I I haven’t approved the draft yet. Most of the figures look right, but I still need to check "
    "the conclusion. You can send it to the client before I approve it. Maya can keep working on "
    "the appendix in the uh, meantime."
)
T2_EDIT = (18, 26, "Do not send it to the client until", "You can send it to the client before")

GOLDEN = [
    # Paper Appendix C, reference 27. Variant k: the four edits come out as four gaps. The T2 edit
    # is two atomic fragments ("Do not"->"You can", "until"->"before") joined over the bridge
    # "send it to the client": no boundary, one predicate ("send") per side.
    ("ref27-k", REF27, HYP27_K, [
        (0, 0, 0, 1, "", "I"),
        (6, 6, 7, 9, "", "Most of"),
        (T2_EDIT[0], T2_EDIT[1], 21, 29, T2_EDIT[2], T2_EDIT[3]),
        (38, 38, 41, 42, "", "uh"),
    ]),
    ("ref27-c", REF27, HYP27_C, [(6, 6, 6, 8, "", "Most of")]),
    ("ref27-f", REF27, HYP27_F, [(18, 26, 18, 26, T2_EDIT[2], T2_EDIT[3])]),
    # Negation.
    ("neg-deleted", "do not send it", "do send it", [(1, 2, 1, 1, "not", "")]),
    ("neg-inserted", "Please send the invoice today.", "Please don't send the invoice today.",
     [(1, 1, 1, 2, "", "don't")]),
    ("neg-multiword", "please do not ever send it", "please send it", [(1, 4, 1, 1, "do not ever", "")]),
    # Disfluencies. A repeated word: the longest block starts at hypothesis token 1, so the first
    # "I" is the insertion.
    ("filler", "I want to book a table", "I uh want to book a table", [(1, 1, 1, 2, "", "uh")]),
    ("repetition", "I want to go", "I I want to go", [(0, 0, 0, 1, "", "I")]),
    # Two fillers around "we should": both fragments, no boundary and no predicate in the
    # envelopes, so consolidation merges them into one gap.
    ("two-fillers", "we should leave now", "um we should uh leave now",
     [(0, 2, 0, 4, "we should", "um we should uh")]),
    ("restart-in-hyp", "I want to cancel my order", "I want to I want to cancel my order",
     [(0, 0, 0, 3, "", "I want to")]),
    ("restart-in-ref", "can you can you send it", "can you send it", [(0, 2, 0, 0, "can you", "")]),
    # Split and merged words.
    ("split-word", "I need a database backup", "I need a data base backup",
     [(3, 4, 3, 5, "database", "data base")]),
    ("merged-words", "we can check in tomorrow", "we can checkin tomorrow", [(2, 4, 2, 3, "check in", "checkin")]),
    ("hyphen-split-no-gap", "a follow-up email", "a follow up email", []),
    ("hyphen-merged", "a followup email", "a follow-up email", [(1, 2, 1, 3, "followup", "follow-up")]),
    ("contraction", "we'll go", "we will go", [(0, 1, 0, 2, "we'll", "we will")]),
    ("contraction-2", "I have not seen it", "I haven't seen it", [(1, 3, 1, 2, "have not", "haven't")]),
    ("apostrophe-variant", "I haven’t seen it", "I haven't seen it", []),
    ("case-punct-only", "Do NOT send it!", "do not send it", []),
    # Numbers.
    ("number-words", "I paid 3,000 dollars", "I paid three thousand dollars",
     [(2, 3, 2, 4, "3,000", "three thousand")]),
    ("number-change", "fifteen people are coming", "fifty people are coming", [(0, 1, 0, 1, "fifteen", "fifty")]),
    ("flight-number", "Flight 370 departs from gate 12", "Flight 317 departs from gate 12", [(1, 2, 1, 2, "370", "317")]),
    ("time-format", "see you at 10:30", "see you at ten thirty", [(3, 5, 3, 5, "10:30", "ten thirty")]),
    ("currency", "it costs $25", "it costs 25 dollars", [(3, 3, 3, 4, "", "dollars")]),
    # Start and end of the strings.
    ("insert-start", "the train leaves at six", "well the train leaves at six", [(0, 0, 0, 1, "", "well")]),
    ("insert-end", "call me tomorrow", "call me tomorrow okay", [(3, 3, 3, 4, "", "okay")]),
    ("delete-start", "so we start at nine", "we start at nine", [(0, 1, 0, 0, "so", "")]),
    ("delete-end", "send it now please", "send it now", [(3, 4, 3, 3, "please", "")]),
    ("insert-after-period", "Yes. We agree.", "Yes. Well we agree.", [(1, 1, 1, 2, "", "Well")]),
    ("empty-ref", "", "hello there", [(0, 0, 0, 2, "", "hello there")]),
    ("empty-hyp", "hello there", "", [(0, 2, 0, 0, "hello there", "")]),
    ("both-empty", "", "", []),
    ("punct-only-ref", "...", "ok", [(0, 0, 0, 1, "", "ok")]),
    ("all-different", "yes", "no", [(0, 1, 0, 1, "yes", "no")]),
    ("unicode", "Café Zürich is open", "cafe zurich is open", [(0, 2, 0, 2, "Café Zürich", "cafe zurich")]),
    # Consolidation blocked by a boundary word, a comma, a free-standing dash, a sentence end.
    ("bridge-and", "buy milk and eggs", "buy silk and legs", [(1, 2, 1, 2, "milk", "silk"), (3, 4, 3, 4, "eggs", "legs")]),
    ("bridge-comma", "the red car, the blue van", "the bed car, the blue man",
     [(1, 2, 1, 2, "red", "bed"), (5, 6, 5, 6, "van", "man")]),
    ("bridge-dash", "take the red one - the blue one stays", "take the bed one - the glue one stays",
     [(2, 3, 2, 3, "red", "bed"), (5, 6, 5, 6, "blue", "glue")]),
    # ... but an intra-word hyphen is no dash.
    ("bridge-hyphenated-word", "the red follow-up blue car", "the bed follow-up glue car",
     [(1, 5, 1, 5, "red follow-up blue", "bed follow-up glue")]),
    ("bridge-sentence", "Call Anna today. Pay the rent tomorrow.", "Call Hannah today. Pay the rent on Tuesday.",
     [(1, 2, 1, 2, "Anna", "Hannah"), (6, 7, 6, 8, "tomorrow", "on Tuesday")]),
    # Two predicates ("send", "check") in the envelope: no consolidation.
    ("two-predicates", "we send the report to check the figures", "we sent the report to check the fixtures",
     [(1, 2, 1, 2, "send", "sent"), (7, 8, 7, 8, "figures", "fixtures")]),
    # Swapped nouns. Candidates (0,3,2) "the cat", (2,2,2) "chased the", (3,0,2) "the dog" all reach
    # f = 2; the chain keeps the earliest, (0,3,2), which lies on no minimum edit path (D = 2), so
    # nothing is retained and the whole region is one terminal gap (SPEC §2.7).
    ("swap", "the cat chased the dog", "the dog chased the cat",
     [(0, 5, 0, 5, "the cat chased the dog", "the dog chased the cat")]),
    # Fragments: two 4-token gaps never merge; a 4-token gap next to a 1-token gap does.
    ("no-fragment", "one two three four red five six seven eight", "uno dos tres cuatro red cinco seis siete ocho",
     [(0, 4, 0, 4, "one two three four", "uno dos tres cuatro"), (5, 9, 5, 9, "five six seven eight", "cinco seis siete ocho")]),
    ("one-fragment", "one two three four red five", "uno dos tres cuatro red cinco",
     [(0, 6, 0, 6, "one two three four red five", "uno dos tres cuatro red cinco")]),
    # No limit on bridge length by default.
    ("long-bridge", "i will bring the big red box tomorrow", "i will ring the big red fox tomorrow",
     [(2, 7, 2, 7, "bring the big red box", "ring the big red fox")]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "ref", "hyp", "expected"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden(name, ref, hyp, expected):
    seg = segment(ref, hyp)
    got = [
        (g.ref_tokens[0], g.ref_tokens[1], g.hyp_tokens[0], g.hyp_tokens[1], g.ref_text, g.hyp_text)
        for g in seg.gaps
    ]
    assert got == expected


def test_golden_has_enough_cases():
    assert len(GOLDEN) >= 30


def test_appendix_c_variant_texts():
    """The single-gap hypotheses of variant k reproduce the paper's variants c and f exactly."""
    seg = segment(REF27, HYP27_K)
    # Anchors keep the reference's characters, so variant c differs from the paper's text only in
    # the case of the anchor "The" (same tokens).
    assert seg.single_gap_hypothesis(1) == HYP27_C.replace("Most of the", "Most of The")
    assert [t.norm for t in tokenize(seg.single_gap_hypothesis(1))] == [
        t.norm for t in tokenize(HYP27_C)
    ]
    assert seg.single_gap_hypothesis(2) == HYP27_F
    assert seg.single_gap_hypothesis(0) == "I " + REF27
    assert seg.single_gap_hypothesis(3) == REF27.replace("the meantime", "the uh meantime")
    assert [g.kind for g in seg.gaps] == ["insertion", "insertion", "substitution", "insertion"]


def test_max_bridge_tokens():
    ref, hyp = "i will bring the big red box tomorrow", "i will ring the big red fox tomorrow"
    assert len(segment(ref, hyp, max_bridge_tokens=3).gaps) == 1
    two = segment(ref, hyp, max_bridge_tokens=2)
    assert [(g.ref_text, g.hyp_text) for g in two.gaps] == [("bring", "ring"), ("box", "fox")]
    assert "max_bridge:2" in two.signature


def test_no_consolidate_returns_atomic_gaps():
    seg = segment(REF27, HYP27_K, consolidate=False)
    assert [(g.ref_text, g.hyp_text) for g in seg.gaps] == [
        ("", "I"),
        ("", "Most of"),
        ("Do not", "You can"),
        ("until", "before"),
        ("", "uh"),
    ]
    assert "consolidate:no" in seg.signature

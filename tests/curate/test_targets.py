"""Target candidates on real papers' shapes: a results table whose row names the method as its title
does (not 'Ours'), and a number only in the abstract, the place most real headlines stand."""

from __future__ import annotations

from reclaim.curate.targets import from_abstract, headline, method_name, stands

ABSTRACT = ("# GRAVER: Generative Graph Vocabularies\n\n## Abstract\n\n"
            "Prior work since 2021 studies GPT-4 and O(n^2) bounds (Table 3). Our method reduces the required "
            "noise by 20% at the same risk, and reaches 73.7% hit@1 with 1% seeds.\n")


def test_the_abstracts_first_number_beside_a_gain_or_a_metric_skipping_years_names_and_references():
    c = from_abstract(ABSTRACT)
    assert c is not None and c.value == 20.0 and c.direction == "higher_is_better" and c.found
    assert c.where == "abstract, sentence 2" and c.criteria == {"abs_tol": 1.0}
    assert stands(c, ABSTRACT)
    assert not stands(c.model_copy(update={"value": 21.0}), ABSTRACT)  # re-read, not trusted
    assert from_abstract("# T\n\n## Abstract\n\nWe study graphs. Experiments show it works.\n") is None


def test_a_row_named_as_the_title_names_the_method_is_the_papers_own():
    text = ABSTRACT + ("\nTable 2: Results\n| Method | Accuracy (%) |\n|---|---|\n| GCN | 70.1 |\n"
                       "| GRAVER | 74.2 |\n")
    assert method_name("GRAVER: Generative Graph Vocabularies") == "GRAVER"
    assert method_name("A Long Title Without a Colon") is None
    c = headline(text, "GRAVER: Generative Graph Vocabularies")
    assert c is not None and c.value == 74.2 and c.where == "Table 2, row 'GRAVER', column 'Accuracy (%)'"
    assert c.found

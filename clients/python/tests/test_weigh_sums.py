"""weigh sums each text's token costs as whole units by C code and rounds that exact sum; it must
round as the TypeScript library's float additions do (_weigh_in_order), and add them in that
order whenever the exact sum lies near a half."""

import random

from custodian import fit

from conftest import CORPUS


def test_the_unit_sum_rounds_as_the_float_additions_on_every_corpus_document_and_pieces_of_them():
    rng = random.Random(26)
    texts = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.iterdir())]
    pieces = [t[a : a + rng.randrange(1, 4000)] for t in texts for a in (rng.randrange(len(t)) for _ in range(4))]
    differ = [t[:60] for t in texts + pieces if t and fit.weigh(t) != fit._weigh_in_order(fit._TOKENS.findall(t))]
    assert differ == []


def test_a_sum_near_a_half_is_left_to_the_float_additions():
    one = 1 << fit._UNIT
    assert fit._round_clearly(5 * one // 2, one, 10, 1) is None
    assert fit._round_clearly(5 * one // 2 + 1, one, 10, 1) is None
    assert fit._round_clearly(5 * one // 2 - one // 10, one, 10, 1) == 2
    assert fit._round_clearly(5 * one // 2 + one // 10, one, 10, 1) == 3


def test_a_corpus_document_whose_sum_lies_near_a_half_is_weighed_by_the_float_additions(monkeypatch, vectors):
    slow = []
    in_order = fit._weigh_in_order
    monkeypatch.setattr(fit, "_weigh_in_order", lambda tokens: slow.append(in_order(tokens)) or slow[-1])
    weighed = {v["file"]: fit.weigh((CORPUS / v["file"]).read_text(encoding="utf-8")) for v in vectors["weigh"]["corpus"]}
    assert len(slow) >= 1
    assert weighed == {v["file"]: v["tokens"] for v in vectors["weigh"]["corpus"]}

"""The Python fit module gives the TypeScript library's numbers and fitted text, byte for byte."""

import json

import pytest

from custodian import fit

from conftest import CORPUS, input_text, load

WEIGH = load("weigh.json")
CASES = load("fit.json")


def test_weigh_equals_on_every_corpus_document():
    assert len(WEIGH["corpus"]) == 252
    wrong = [(v["file"], v["tokens"], fit.weigh((CORPUS / v["file"]).read_text(encoding="utf-8"))) for v in WEIGH["corpus"]]
    wrong = [w for w in wrong if w[1] != w[2]]
    assert wrong == []


@pytest.mark.parametrize("vector", WEIGH["texts"], ids=lambda v: repr(v["text"][:30]))
def test_weigh_and_chars_equal_on_edge_texts(vector):
    assert fit.weigh(vector["text"]) == vector["tokens"]
    assert fit.count_chars(vector["text"]) == vector["chars"]


def run(case):
    text = input_text(case["input"])
    fn = {"document": fit.fit_document, "diff": fit.fit_diff, "json": fit.fit_json}[case["fn"]]
    value = json.loads(text) if case["fn"] == "json" else text
    return fn(value, **case["options"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_fitting_equals(case):
    got = run(case)
    assert got.fit == case["fit"]
    assert got.text == case["text"]
    assert got.meta() == case["fit"]


def test_small_functions_equal():
    misc = load("misc.json")
    assert (fit.CAP, fit.CAP_CHARS) == (misc["CAP"], misc["CAP_CHARS"])
    for v in misc["charsOf"]:
        assert fit.chars_of(v["budget"]) == v["chars"]
    for v in misc["defaultBudget"]:
        assert fit.default_budget(used=v["used"], warned=v["warned"]) == v["budget"]
    for v in misc["wanted"]:
        o = v["options"]
        assert fit.wanted(o.get("view"), o.get("budget"), o.get("query")) == v["wanted"]

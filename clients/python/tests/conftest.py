import json
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = pathlib.Path(os.environ.get("CUSTODIAN_FIT_VECTORS", ROOT / "test" / "fixtures" / "fit-vectors"))
CORPUS = ROOT / "test" / "fixtures" / "fit-corpus" / "docs"


def load(name):
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def input_text(spec):
    if "corpus" in spec:
        return (CORPUS / spec["corpus"]).read_text(encoding="utf-8")
    if "text" in spec:
        return spec["text"]
    return spec["repeat"] * spec["times"]


@pytest.fixture(scope="session")
def vectors():
    return {"weigh": load("weigh.json"), "fit": load("fit.json"), "misc": load("misc.json")}

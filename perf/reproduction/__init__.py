"""Reproductions of the papers Parity implements: per paper a module (plan, run_extras, page) and
papers/<paper>.json, the paper's published cells. Adding a paper: a module with those three
functions, its JSON, and a line in PAPERS."""
import importlib

PAPERS = {
    "krusell-smith": "reproduction.krusell_smith",
    "dual-control": "reproduction.dual_control",
    "januszewski-kostur": "reproduction.januszewski_kostur",
    "cubature": "reproduction.cubature",
}


def module(paper: str):
    return importlib.import_module(PAPERS[paper])

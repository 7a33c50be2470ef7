"""bmn's floors, walked: no import runs back up a floor, and no modules import each other.

Each package of bmn stands on a floor (docs/development.md, "Layout"): the engine below, the
front ends on top. kernels/ at the bottom, records/ on it, then inside search/ the plain words,
the rooms a run stands on, the runs, the search benchmark, which times real runs, and the
library; above them frontends/: what they print and draw, then the web page and the command
line. A module may import its own package and anything on a lower floor; an import that goes
up, or a circle of imports, fails here (imports inside functions and under TYPE_CHECKING count
too: they are the same dependency, taken later; so do the names of an api module's door). The
engine imports no click, rich or Datasette, and the front ends reach it through its api modules.
"""

from __future__ import annotations

import ast
import importlib
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "kernels": "bmn.kernels",
    "search": "bmn.search",
    "records": "bmn.records",
    "frontends": "bmn.frontends",
}

# The floor of each package, lowest first: a module's floor is that of its longest listed
# prefix. Same floor, other package: also refused (a room does not reach into its neighbour).
FLOORS = {
    "bmn.kernels": 0,
    "bmn.records": 1,
    "bmn.search.words": 2,
    "bmn.search.strategies": 3,
    "bmn.search.enumeration": 3,
    "bmn.search.backends": 3,
    "bmn.search.cycles": 3,
    "bmn.search.measure": 3,
    "bmn.search.runs": 4,
    "bmn.search.benchmark": 5,  # search-bench's trials: real runs, timed
    "bmn.search.api": 6,  # the library, and the front ends' door to all of search/
    "bmn.search": 7,  # the package itself: its lazy exports name the library
    "bmn.frontends.output": 8,
    "bmn.frontends.serve": 9,
    "bmn.frontends.cli": 10,
    "bmn.frontends": 11,
}
ENGINE = ("bmn.kernels", "bmn.records", "bmn.search")
APIS = tuple(f"{package}.api" for package in ENGINE)  # the front ends' one door to each
# The one import from the engine up into the front ends: the library's search(display=True)
# shows the command line's live panel, imported inside the call that asks for it.
DOORS = {("bmn.search.api", "bmn.frontends.output.progress")}


def _modules() -> dict[str, Path]:
    found = {}
    for folder, package in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _targets(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The bmn modules one import statement reaches (a name imported from a package that is
    itself a module counts as that module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    subs = [f"{source}.{alias.name}" for alias in node.names]
    named = [sub for sub in subs if sub in MODULES]
    return named if len(named) == len(subs) else [source, *named]


@cache
def _edges() -> dict[str, set[str]]:
    """Every bmn module's imports of other bmn modules, parsed when a test first asks (not at
    collection, which every worker of -n runs)."""
    edges: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        package = path.name == "__init__.py"
        reached = {t for node in ast.walk(tree) for t in _targets(node, module, package)}
        reached |= {target for target, _ in _door(module).values()}
        edges[module] = {t for t in reached if t in MODULES and t != module}
    return edges


@cache
def _door(module: str) -> dict[str, tuple[str, str]]:
    """An API module's front-end door, {name: (module, name)}: the imports it makes when a
    front end first asks (kernels/exports.py's front_door); empty for any other module."""
    return importlib.import_module(module).FRONT_ENDS if module in APIS else {}


def _room(module: str) -> str:
    return max((p for p in FLOORS if module == p or module.startswith(p + ".")), key=len)


def test_every_import_of_bmn_names_a_module() -> None:
    """An import of a bmn module that is not there (one moved or renamed) is found here too,
    under TYPE_CHECKING as well, where nothing runs it."""
    missing = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        package = path.name == "__init__.py"
        for node in ast.walk(tree):
            for target in _targets(node, module, package):
                if target.startswith("bmn.") and target not in MODULES:
                    missing.append(f"{module} -> {target}")
    assert missing == []


def test_every_module_has_a_floor() -> None:
    assert len(MODULES) > 80
    assert all(_room(m) for m in MODULES)


def test_no_import_runs_up_or_across() -> None:
    wrong = []
    for module, targets in _edges().items():
        room = _room(module)
        for target in targets:
            other = _room(target)
            if other != room and FLOORS[other] >= FLOORS[room] and (module, target) not in DOORS:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def _outside_imports(module: str) -> set[str]:
    """The top-level names of what a module imports from outside bmn (in functions too)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.partition(".")[0])
    return names


def test_the_engine_imports_no_click_rich_or_datasette() -> None:
    """What shows figures (click, rich, Datasette) lives in the front ends: the engine is
    what a notebook or another program imports, without them."""
    front = {"click", "rich", "datasette"}
    wrong = {
        module: sorted(_outside_imports(module) & front)
        for module in MODULES
        if module.startswith(ENGINE) and _outside_imports(module) & front
    }
    assert wrong == {}
    assert _outside_imports("bmn.frontends.cli.main") & front == {"click"}  # the walk sees them


def _engine_names(module: str) -> list[tuple[str, str]]:
    """(engine module, name) of each name a module imports from the engine (functions too)."""
    tree = ast.parse(MODULES[module].read_text())
    return [
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(ENGINE)
        for alias in node.names
    ]


def _front_ends() -> list[str]:
    return [module for module in MODULES if module.startswith("bmn.frontends")]


def test_the_front_ends_reach_the_engine_only_through_its_api_modules() -> None:
    """The command line and the web page take the engine's names from bmn.kernels.api,
    bmn.search.api and bmn.records.api alone: the library's names (`__all__`) or the door's
    (FRONT_ENDS), so the engine's insides move without touching them."""
    wrong, taken = [], 0
    for module in _front_ends():
        targets = _edges()[module]
        wrong += [f"{module} -> {t}" for t in targets if t.startswith(ENGINE) and t not in APIS]
        for source, name in _engine_names(module):
            api = importlib.import_module(source) if source in APIS else None
            taken += api is not None
            if api is not None and name not in api.__all__ and name not in api.FRONT_ENDS:
                wrong.append(f"{module}: {name} is neither {source}'s library nor its door")
    assert wrong == []
    assert taken > 100  # the walk sees the front ends' imports


def _binds(module: str, name: str) -> bool:
    """Whether a module's own text binds `name` at its top level (def, class, =, import)."""
    for node in ast.parse(MODULES[module].read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if name in found:
                return True
        imported = node.names if isinstance(node, (ast.Import, ast.ImportFrom)) else []
        if name in {(a.asname or a.name).partition(".")[0] for a in imported}:
            return True
    return False


def test_each_door_name_is_bound_in_its_own_package_and_taken_by_a_front_end() -> None:
    """A door's name is one its module binds (read, not imported: the CUDA modules refuse to
    import without a GPU), in the API's own package; it is no name of the library (a door
    called like one would be shadowed by it), and the same object as the API module's own
    where that module imports it too; and a front end takes it (no door left open)."""
    wrong = []
    taken = {(source, name) for m in _front_ends() for source, name in _engine_names(m)}
    for api in APIS:
        module = importlib.import_module(api)
        assert len(_door(api)) >= 10
        for called, (target, name) in _door(api).items():
            package = api.rpartition(".")[0]
            if not (target.startswith(package + ".") and target in MODULES):
                wrong.append(f"{api}.{called}: {target} is no module of {package}")
            elif not _binds(target, name):
                wrong.append(f"{api}.{called}: {target} binds no {name}")
            own = vars(module).get(called)  # the API imports it too: the global answers first
            if called in module.__all__:
                wrong.append(f"{api}.{called} is a library name")
            elif own is not None and own is not getattr(importlib.import_module(target), name):
                wrong.append(f"{api}.{called} is another object than {target}.{name}")
            if (api, called) not in taken:
                wrong.append(f"{api}.{called}: no front end takes it")
    assert wrong == []


def test_the_door_imports_a_name_when_asked_and_refuses_others() -> None:
    import bmn.kernels.api as api

    assert api.shorten is importlib.import_module("bmn.kernels.deal").shorten
    assert api.parse_typed is importlib.import_module("bmn.kernels.deal").parse_deal
    assert api.parse_deal is not api.parse_typed  # the library's own, under its own name
    try:
        api.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("an unknown name was answered")


def _strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module: each is a circle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                circles.append(sorted(part))

    for v in edges:
        if v not in index:
            visit(v)
    return circles


def test_no_circle_of_imports() -> None:
    """The one import up (DOORS) is taken inside a call, once both ends are loaded: the
    library's live panel imports the library's door back, and that is no circle of loading."""
    edges = {m: {t for t in ts if (m, t) not in DOORS} for m, ts in _edges().items()}
    assert _strongly_connected(edges) == []


def test_the_walk_sees_a_circle() -> None:
    """The walk itself: a circle and an upward import are found when they are there."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _strongly_connected(edges) == [["a", "b", "c"]]
    assert "bmn.kernels.deal" in _edges()["bmn.kernels.api"]


def _kind_modules() -> set[str]:
    """The modules that hold a kind of run's job, as the registry of kinds names them."""
    tree = ast.parse((ROOT / "search" / "runs" / "registry.py").read_text())
    named = {
        node.value.partition(":")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and node.value.startswith("bmn.search.runs.") and ":" in node.value
    }  # fmt: skip
    return named


def test_no_run_module_imports_a_kind_of_run() -> None:
    """A kind of run is one module that nothing else in search/runs/ builds on: what two kinds
    share lives in a room named for what it is (chunks, the cycle book, a kind's CPU and GPU
    base), so reading one kind never means reading another."""
    kinds = _kind_modules()
    assert {"bmn.search.runs.kinds.every", "bmn.search.runs.kinds.loop_hunt"} <= kinds
    assert len(kinds) == 7
    wrong = [
        f"{module} -> {target}"
        for module, targets in _edges().items()
        if _room(module) == "bmn.search.runs"
        for target in targets & kinds
    ]
    assert wrong == []


def test_no_package_holds_more_than_14_modules() -> None:
    """A package's modules fit one look at its folder: past 14 it splits into rooms."""
    counts: dict[str, int] = {}
    for module, path in MODULES.items():
        if path.name != "__init__.py":
            package = module.rpartition(".")[0]
            counts[package] = counts.get(package, 0) + 1
    assert counts["bmn.search.runs.kinds"] >= 7  # the walk sees the packages' modules
    assert {package: n for package, n in counts.items() if n > 14} == {}


def _lab_imports(tree: ast.AST) -> list[str]:
    """The imports of the lab (lab/, never installed) in one module's tree."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names if a.name.partition(".")[0] == "lab"]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names += [node.module] if (node.module or "").partition(".")[0] == "lab" else []
    return names


def test_no_module_of_bmn_imports_the_lab() -> None:
    """The lab imports bmn; bmn never imports the lab, which is not installed with it."""
    wrong = [
        f"{module} -> {name}"
        for module, path in MODULES.items()
        for name in _lab_imports(ast.parse(path.read_text(), str(path)))
    ]
    assert wrong == []


def test_the_lab_walk_sees_an_import_of_the_lab() -> None:
    tree = ast.parse("import lab.cycles\nfrom lab import cuda_compiled\nfrom .lab import x\n")
    assert _lab_imports(tree) == ["lab.cycles", "lab"]
    assert any(_lab_imports(ast.parse(p.read_text())) for p in (ROOT / "lab").rglob("*.py"))

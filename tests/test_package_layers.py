"""The package's layers: what each may import, no import cycles, small modules, lazy loading."""
import ast
import pathlib
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "tflint_effective"
# Layer -> the layers its modules may import (besides their own).
ALLOWED = {
    "levels": set(),
    "analysis": {"levels"},
    "rule": {"levels"},
    "rules": {"levels", "rule", "analysis"},
    "registry": {"levels", "rule", "rules"},
    "engine": {"levels", "rule", "registry", "analysis"},
    "frontends": {"levels", "rule", "registry", "analysis", "engine", ""},
    "runtime_checks": set(),
    "": {"frontends", "engine"},  # __init__ / __main__ / the flake8 shim: lazy entry points
}
NAME_TABLES = {"analysis/tf_api.py"}  # long lists of names are data, not code


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        parts = list(relative.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield path, ".".join(["tflint_effective", *parts]), relative.parts[0].removesuffix(".py") if len(
            relative.parts) > 1 or relative.stem not in ("__init__", "__main__", "flake8_plugin") else ""


def _runtime_imports(path: pathlib.Path, module: str):
    """Modules of the package imported outside ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    type_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                 and getattr(node.test, "id", "") == "TYPE_CHECKING" for n in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = f"{base}.{node.module}" if node.level and node.module else (base if node.level else node.module)
            for alias in node.names:
                yield f"{target}.{alias.name}" if _is_module(f"{target}.{alias.name}") else target
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def _is_module(name: str) -> bool:
    relative = pathlib.Path(*name.split(".")[1:])
    return (PACKAGE / relative).with_suffix(".py").exists() or (PACKAGE / relative / "__init__.py").exists()


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return ""
    return parts[1] if parts[1] not in ("__main__", "flake8_plugin") else ""


def test_each_layer_imports_only_the_layers_below_it():
    wrong = []
    for path, module, layer in _modules():
        for target in _runtime_imports(path, module):
            if target.startswith("tflint_effective"):
                other = _layer(target)
                if other != layer and other not in ALLOWED[layer] and target != "tflint_effective":
                    wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_no_import_cycle_between_modules():
    graph = {module: {t for t in _runtime_imports(path, module) if t.startswith("tflint_effective.")}
             for path, module, _ in _modules()}
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for target in graph.get(node, ()):
            if state.get(target) == "open":
                pytest.fail("import cycle: " + " -> ".join([*stack[stack.index(target):], target]))
            if target not in state:
                visit(target, [*stack, target])
        state[node] = "done"

    for module in graph:
        if module not in state:
            visit(module, [module])


def test_no_module_over_400_lines_of_code():
    long = []
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).as_posix() in NAME_TABLES:
            continue
        code = [line for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.strip().startswith("#")]
        if len(code) > 400:
            long.append(f"{path.relative_to(PACKAGE)}: {len(code)}")
    assert long == []


def _loaded_after(statement: str):
    probe = (f"import sys; {statement}; "
             "print(sorted(m for m in ('libcst', 'tensorflow', 'pygls') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return result.stdout.strip()


@pytest.mark.parametrize("statement", [
    "import tflint_effective",
    "import tflint_effective.frontends.cli",
    "import tflint_effective.frontends.flake8_plugin",
    "import tflint_effective.registry",
])
def test_importing_the_package_or_its_front_ends_loads_neither_libcst_nor_tensorflow(statement):
    assert _loaded_after(statement) == "[]"


def test_the_public_api_loads_libcst_when_used():
    assert _loaded_after("from tflint_effective import lint_source; "
                         "lint_source('import tensorflow as tf\\n')") == "['libcst']"

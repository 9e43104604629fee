"""The Python programs of docs/examples against the generated Python SDK (sdks/python), read as
source: no `pulumi` package can be installed here, so neither the SDK nor the programs can be
imported or type-checked. Every `<sdk>.<name>(...)` a program calls must exist in the SDK and be
given only keyword arguments it takes, and every attribute a program reads of a resource or of a
lookup's result, assigned to a name, must be one they have. Prints each problem as file:line and
exits 1 if there is any.

Usage: python3 scripts/check-python-examples.py <sdk package folder> <example files...>
"""

import ast
import re
import sys
from pathlib import Path


def getters(cls: ast.ClassDef) -> set[str]:
    """The properties a class exposes: its methods decorated as getters or properties."""
    names = set()
    for item in cls.body:
        if isinstance(item, ast.FunctionDef):
            decorators = {ast.unparse(d) for d in item.decorator_list}
            if any(d.startswith("pulumi.getter") or d.endswith("property") for d in decorators):
                names.add(item.name)
    return names


def parameters(fn: ast.FunctionDef) -> set[str]:
    args = fn.args
    every = args.posonlyargs + args.args + args.kwonlyargs
    return {a.arg for a in every} - {"__self__", "self", "resource_name", "opts", "__props__"}


class Sdk:
    """What the SDK's modules declare: callables with their parameters, and what each returns."""

    def __init__(self, package: Path):
        self.callables: dict[str, set[str]] = {}
        self.returns: dict[str, str] = {}
        self.attributes: dict[str, set[str]] = {}
        for file in sorted(package.glob("*.py")):
            for node in ast.parse(file.read_text(), str(file)).body:
                if isinstance(node, ast.ClassDef):
                    self.attributes[node.name] = getters(node)
                    inits = [n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
                    if inits:
                        # The first overload takes the properties as keyword arguments.
                        self.callables[node.name] = parameters(inits[0])
                        self.returns[node.name] = node.name
                elif isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                    self.callables[node.name] = parameters(node)
                    result = re.search(r"(?:Awaitable)?(Get\w+Result)", ast.unparse(node.returns or ast.Constant(None)))
                    if result:
                        self.returns[node.name] = result.group(1)


def sdk_aliases(tree: ast.Module, package: str) -> set[str]:
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update(a.asname or a.name for a in node.names if a.name == package)
    return aliases


def problems(file: Path, sdk: Sdk, package: str) -> list[str]:
    tree = ast.parse(file.read_text(), str(file))
    aliases = sdk_aliases(tree, package)
    found = []
    if not aliases:
        found.append(f"{file}:1: does not import {package}")

    def sdk_callable(call: ast.expr) -> str | None:
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            if isinstance(call.func.value, ast.Name) and call.func.value.id in aliases:
                return call.func.attr
        return None

    # What each name holds: the SDK class or lookup result it was assigned from.
    holds: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = sdk_callable(node.value)
            if name in sdk.returns:
                holds[node.targets[0].id] = sdk.returns[name]

    for node in ast.walk(tree):
        name = sdk_callable(node)
        if name is not None:
            if name not in sdk.callables:
                found.append(f"{file}:{node.lineno}: {package} has no {name}")
                continue
            for keyword in node.keywords:
                if keyword.arg is not None and keyword.arg not in sdk.callables[name]:
                    found.append(f"{file}:{node.lineno}: {name} takes no argument {keyword.arg}")
            result = sdk.returns.get(name)
            parent_reads = [a for a in ast.walk(tree) if isinstance(a, ast.Attribute) and a.value is node]
            for read in parent_reads:
                if result is not None and read.attr not in sdk.attributes.get(result, set()):
                    found.append(f"{file}:{read.lineno}: the result of {name} has no {read.attr}")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in holds:
            held = holds[node.value.id]
            if node.attr not in sdk.attributes.get(held, set()):
                found.append(f"{file}:{node.lineno}: {node.value.id} ({held}) has no {node.attr}")
    return found


def main() -> int:
    package_dir = Path(sys.argv[1])
    sdk = Sdk(package_dir)
    every = [p for file in sys.argv[2:] for p in problems(Path(file), sdk, package_dir.name)]
    for line in every:
        print(line, file=sys.stderr)
    return 1 if every else 0


if __name__ == "__main__":
    sys.exit(main())

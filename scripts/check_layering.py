#!/usr/bin/env python3
"""The layering of src/ as README.md's table states it, checked from the includes themselves.

Each folder of src/ is a layer with a level; a file may include from its own folder and from folders
of lower levels only. A public header (include/kjarni/...) belongs to the layer that implements it
(the table's "public headers" column), so including it counts as reaching into that layer: a backend
file including kjarni/characterize.hpp reaches core just as `#include "core/..."` would. A public
header itself is checked as a file of its layer. Beside the includes: vendor headers (CUDA's, OpenCL's,
cuBLAS', CLBlast's, NCCL's) only inside the folders that own them, and no dynamic_cast to a backend
type outside src/backend.

    scripts/check_layering.py            # check; exit 1 with every violation listed
    scripts/check_layering.py --graph    # the folder-level include graph (upward edges marked)
    scripts/check_layering.py --root DIR # check another checkout (the check's own test does)

scripts/layering-exceptions.txt lists the upward includes not yet mended, each with its reason: they
are reported, not failed; one that no longer occurs fails, so that the list only shrinks.
"""
import argparse
import collections
import fnmatch
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".inc", ".cu"}
# The umbrella header includes every layer: nothing inside the library may include it.
UMBRELLA = "kjarni.hpp"
# System headers of vendor APIs, and the places allowed to include them (folders of src/; the two
# public interoperation headers hand out native handles, so they name the driver's types).
VENDOR_HEADERS = [
    (re.compile(r"^(cuda|cudaTypedefs|cuda_runtime[a-z_]*|nvrtc|builtin_types|vector_types)\.h$"),
     ("src/backend/cuda", "src/vendor", "include/kjarni/cuda.hpp")),
    (re.compile(r"^CL/"), ("src/backend/opencl", "src/vendor", "include/kjarni/opencl.hpp")),
    (re.compile(r"^(cublas[a-zA-Z_0-9]*|clblast[a-z_0-9]*|nccl[a-z_]*)\.h$"), ("src/vendor",)),
]
BACKEND_CAST = re.compile(r"dynamic_cast<\s*(const\s+)?(kjarni::)?backend::")


def parse_table(readme):
    """level of each folder and owner folder of each public header pattern, from README.md."""
    text = readme.read_text()
    start = text.find("### Layers of `src/`")
    if start < 0:
        sys.exit("check-layering: no '### Layers of `src/`' table in README.md")
    levels, owners = {}, []
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not cells[0].isdigit():
            continue
        level = int(cells[0])
        folders = re.findall(r"`(?:src/)?([a-z_0-9]+)/`", cells[1])
        if len(folders) != 1:
            sys.exit(f"check-layering: a row of README.md's layer table names {len(folders)} folders: "
                     f"give each folder its own row: {line}")
        levels[folders[0]] = level
        for pattern in re.findall(r"`([a-z_0-9/*]+\.hpp)`", cells[2]):
            owners.append((pattern, folders[0], level))
    if not levels:
        sys.exit("check-layering: README.md's layer table has no rows")
    return levels, owners


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    parser.add_argument("--graph", action="store_true", help="print the folder-level include graph")
    args = parser.parse_args()
    root = args.root
    exceptions_file = root / "scripts" / "layering-exceptions.txt"
    exceptions = {}
    if exceptions_file.exists():
        for line in exceptions_file.read_text().splitlines():
            entry = line.split("#")[0].strip()
            if entry:
                exceptions[entry] = False  # becomes True once seen
    levels, owner_patterns = parse_table(root / "README.md")
    problems = []

    for folder in sorted(p.name for p in (root / "src").iterdir() if p.is_dir()):
        if folder not in levels:
            problems.append(f"src/{folder} is not in README.md's layer table")

    public = root / "include" / "kjarni"
    owner = {}  # public header (relative to include/kjarni) -> its folder
    for header in sorted(public.rglob("*.hpp")):
        name = header.relative_to(public).as_posix()
        if name == UMBRELLA:
            continue
        claims = [folder for pattern, folder, _ in owner_patterns if fnmatch.fnmatch(name, pattern)]
        if len(claims) != 1:
            problems.append(f"include/kjarni/{name} is claimed by {len(claims)} rows of the layer table "
                            f"({', '.join(map(str, claims)) or 'none'}); give it exactly one")
            continue
        owner[name] = claims[0]

    edges = collections.Counter()
    upward, known = [], []

    def check_file(path, folder):
        place = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            where = f"{path.relative_to(root)}:{number}"
            if BACKEND_CAST.search(line) and folder != "backend":
                key = f"{place}: dynamic_cast"
                if key in exceptions:
                    exceptions[key] = True
                    known.append(key)
                else:
                    problems.append(f"{where}: a dynamic_cast to a backend type outside src/backend: {line.strip()}")
            match = INCLUDE.match(line)
            if not match:
                continue
            bracket, target = match.groups()
            if bracket == "<":
                for pattern, allowed in VENDOR_HEADERS:
                    if pattern.search(target) and not any(place.startswith(a) for a in allowed):
                        problems.append(f"{where}: vendor header <{target}> outside {', '.join(allowed)}")
                continue
            first, _, rest = target.partition("/")
            if first == "kjarni":
                if rest == UMBRELLA:
                    problems.append(f"{where}: the library includes the umbrella header kjarni/{UMBRELLA}")
                    continue
                to = owner.get(rest)
                if to is None:
                    continue  # reported above (unclaimed), or not a header of ours
            elif (root / "src" / first).is_dir():
                to = first
            else:
                continue
            if to == folder:
                continue
            edges[(folder, to)] += 1
            if levels.get(to, -1) >= levels.get(folder, 10**6):
                key = f"{place}: {target}"
                if key in exceptions:
                    exceptions[key] = True
                    known.append(key)
                    continue
                upward.append(f"{where}: src/{folder} (level {levels[folder]}) reaches src/{to} "
                              f"(level {levels[to]}) through \"{target}\"")

    for path in sorted((root / "src").rglob("*")):
        if path.suffix in SOURCE_SUFFIXES and path.is_file():
            relative = path.relative_to(root / "src").as_posix()
            folder = relative.split("/")[0]
            if folder in levels:
                check_file(path, folder)
    for name, folder in owner.items():
        if folder in levels:
            check_file(public / name, folder)

    if args.graph:
        print("folder-level include graph (from -> to: includes; ^ marks one that reaches up or sideways):")
        for (source, target), count in sorted(edges.items(), key=lambda e: (-levels[e[0][0]], e[0])):
            mark = "^" if levels[target] >= levels[source] else " "
            print(f" {mark} {source:>12} ({levels[source]}) -> {target:<12} ({levels[target]}): {count}")
    problems += upward
    problems += [f"{exceptions_file.relative_to(root)}: '{key}' no longer occurs: remove it"
                 for key, seen in exceptions.items() if not seen]
    if known:
        print(f"check-layering: {len(known)} known upward include(s) not yet mended "
              f"({exceptions_file.relative_to(root)})")
    for problem in problems:
        print(f"check-layering: {problem}", file=sys.stderr)
    if problems:
        print(f"check-layering: {len(problems)} violation(s)", file=sys.stderr)
        return 1
    print("check-layering: every folder of src/ reaches only down (public headers counted by their layer)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The architecture's nevers, checked (docs/architecture.md).

1. Each pipeline folder includes only the folders below it:
     datasets/  itself
     calibrate/ itself, datasets/
     model/     itself, datasets/
     sim/       itself, sim/core/, datasets/
     sim/core/  itself (the engine, schedulers, randomness, output analysis)
     studies/   itself, model/, sim/, sim/core/, datasets/
     app/       everything
   so model/ and sim/ never reach calibrate/ or app/, sim/ never reaches model/ (studies/
   turns a model's predictions into the simulator's costs), and the simulator core needs
   nothing but itself. Every project include must name a file that exists.
2. Nothing in the repository points at files outside it (the developers' notes kept beside
   the repository, one folder up): users get a repository that stands alone.
3. One vocabulary: no scenario or metric name (the names in datasets/vocabulary.cpp's
   scenario and metric tables) is written as a string literal in the five folders outside
   that file; code names them through datasets/vocabulary.hpp. A literal that means
   something else (a JSON field that happens to share a name) carries the comment
   `// vocabulary: <what it is>` on its line.

Usage: check_architecture.py [ROOT]   (default: the repository this script is in)
Exit 0 when every rule holds; 1 with one line per breach (file:line: what); 2 on bad usage.
"""
import os
import re
import sys

ALLOWED = {
    "datasets": {"datasets"},
    "calibrate": {"calibrate", "datasets"},
    "model": {"model", "datasets"},
    "sim": {"sim", "sim/core", "datasets"},
    "sim/core": {"sim/core"},
    "studies": {"studies", "model", "sim", "sim/core", "datasets"},
    "app": {"app", "calibrate", "datasets", "model", "sim", "sim/core", "studies"},
}
PROJECT_FOLDERS = {f.split("/")[0] for f in ALLOWED} | {"bench", "scripts", "tests"}
SOURCE_EXT = (".cpp", ".hpp", ".h", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# Built from parts so that this file does not name what it forbids.
OUTSIDE = re.compile(r"\.\./" + "shared" + r"\b")
SKIP_DIRS = {".git", "build", "out", "__pycache__"}
VOCABULARY_FILE = os.path.join("datasets", "vocabulary.cpp")
VOCABULARY_TABLE = re.compile(r"table<(?:scenario|metric),\s*\d+>\s*\w+\s*\{(.*?)\};", re.S)
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
OPT_OUT = "// vocabulary:"
TEXT_EXT = SOURCE_EXT + (".md", ".txt", ".py", ".sh", ".json", ".cmake", ".gp", ".csv", ".yml", ".yaml", "")


def folder_of(path):
    """The rule a path falls under: the longest folder of ALLOWED it lies in."""
    parts = path.split("/")
    for n in range(len(parts) - 1, 0, -1):
        if "/".join(parts[:n]) in ALLOWED:
            return "/".join(parts[:n])
    return parts[0]


def source_files(root, folder):
    """The sources of `folder`, without those of a nested folder that has rules of its own."""
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP_DIRS and f"{rel_dir}/{d}" not in ALLOWED)
        for f in sorted(filenames):
            if f.endswith(SOURCE_EXT):
                yield os.path.join(dirpath, f)


def include_breaches(root):
    out = []
    for folder, allowed in sorted(ALLOWED.items()):
        for path in source_files(root, folder):
            rel = os.path.relpath(path, root)
            with open(path, encoding="utf-8", errors="replace") as f:
                for line_no, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    top = target.split("/", 1)[0]
                    rule = folder_of(target)
                    if ".." in target.split("/"):
                        out.append(f"{rel}:{line_no}: includes '{target}' by a relative path; name it from the root")
                    elif top in PROJECT_FOLDERS and rule not in allowed:
                        out.append(f"{rel}:{line_no}: {folder}/ includes '{target}'; {folder}/ may include only "
                                   + ", ".join(f"{a}/" for a in sorted(allowed)))
                    elif top in PROJECT_FOLDERS and not os.path.isfile(os.path.join(root, target)):
                        out.append(f"{rel}:{line_no}: includes '{target}', which does not exist")
    return out


def outside_references(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for f in sorted(filenames):
            path = os.path.join(dirpath, f)
            if os.path.splitext(f)[1] not in TEXT_EXT or os.path.getsize(path) > 4 << 20:
                continue
            rel = os.path.relpath(path, root)
            try:
                with open(path, encoding="utf-8") as fh:
                    for line_no, line in enumerate(fh, 1):
                        if OUTSIDE.search(line):
                            out.append(f"{rel}:{line_no}: points outside the repository: {line.strip()[:80]}")
            except UnicodeDecodeError:
                continue  # binary data, not a reference
    return out


def vocabulary_names(root):
    """The scenario and metric names, read from the vocabulary's own tables."""
    path = os.path.join(root, VOCABULARY_FILE)
    if not os.path.isfile(path):
        return set()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return {m for table in VOCABULARY_TABLE.findall(text) for m in STRING.findall(table)}


def code_part(line):
    """The line without its // comment (a // inside a string literal stays)."""
    in_string = False
    i = 0
    while i < len(line):
        c = line[i]
        if in_string and c == "\\":
            i += 2
            continue
        if c == '"':
            in_string = not in_string
        elif not in_string and line.startswith("//", i):
            return line[:i]
        i += 1
    return line


def vocabulary_literals(root):
    names = vocabulary_names(root)
    out = []
    if not names:
        return out
    for folder in sorted(ALLOWED):
        for path in source_files(root, folder):
            rel = os.path.relpath(path, root)
            if rel == VOCABULARY_FILE:
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for line_no, line in enumerate(f, 1):
                    if OPT_OUT in line or line.lstrip().startswith("#include"):
                        continue
                    for literal in STRING.findall(code_part(line)):
                        if literal in names:
                            out.append(f'{rel}:{line_no}: "{literal}" written as a string; name it through '
                                       "datasets/vocabulary.hpp")
    return out


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        print(__doc__.strip(), file=sys.stderr if len(argv) > 2 else sys.stdout)
        return 2 if len(argv) > 2 else 0
    root = argv[1] if len(argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.isdir(root):
        print(f"check_architecture.py: {root}: not a directory", file=sys.stderr)
        return 2
    breaches = include_breaches(root) + outside_references(root) + vocabulary_literals(root)
    for b in breaches:
        print(b)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

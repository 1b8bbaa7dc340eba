#!/usr/bin/env bash
# Creates the files the Neovim tests edit, under DIR:
#   DIR/java/  a git repository with A.java committed (sum, clamp, twice)
#   DIR/c/     oldV.c and newV.c, a pair for the `paired` baseline (f
#              changed: not equivalent; g unchanged)
# Two directories, two project roots: the tests see two servers.
set -euo pipefail
dir="${1:?usage: make-fixtures.sh DIR}"
mkdir -p "$dir/java" "$dir/c"
cat > "$dir/java/A.java" <<'JAVA'
class A {
    static int sum(int a, int b) {
        int s = a + b;
        return s;
    }

    static int clamp(int a) {
        if (a > 10) {
            return 10;
        }
        return a;
    }

    static int twice(int x) {
        return x * 2;
    }
}
JAVA
git_() { git -C "$dir/java" -c user.email=test@example.com -c user.name=test "$@"; }
git_ init -q
git_ add A.java
git_ commit -qm base
cat > "$dir/c/oldV.c" <<'C'
int f(int x) {
  if (x > 3) {
    return x - 1;
  }
  return x;
}

int g(int y) {
  return y + 1;
}
C
sed 's/return x - 1;/return x - 2;/' "$dir/c/oldV.c" > "$dir/c/newV.c"

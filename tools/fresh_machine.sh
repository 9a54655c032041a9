#!/usr/bin/env bash
# A newcomer's machine: a fresh Debian 12 (bookworm) chroot with Debian's own Python 3.11.2 and
# nothing else, a clean clone of this checkout's committed HEAD with ../shared beside it, and the
# README's two set-up commands run exactly as the README writes them, in a clean environment.
# Both logs stream to the terminal and are kept in $EARSHOT_FRESH_LOGS (default /tmp/earshot-fresh-logs).
#
# usage (as root):  bash tools/fresh_machine.sh [PROJECT_DIR]
#   FRESH_BASE=FILE   cached base system (default /var/cache/earshot-fresh/bookworm-base.tgz);
#                     made by debootstrap on first use
#   SHARED=DIR        the shared folder to put beside the clone (default PROJECT_DIR/../shared)
#   FRESH_TIMEOUT=MIN minutes each command may take (default 85)
#   KEEP_ROOT=1       keep the chroot afterwards (for a look inside)
set -uo pipefail
proj=$(cd "${1:-$(dirname "$0")/..}" && pwd)
base=${FRESH_BASE:-/var/cache/earshot-fresh/bookworm-base.tgz}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
shared=${SHARED:-$proj/../shared}
limit=${FRESH_TIMEOUT:-85}
logs=${EARSHOT_FRESH_LOGS:-/tmp/earshot-fresh-logs}

say() { echo "fresh-machine: $*" >&2; }
[ "$(id -u)" -eq 0 ] || { say "must run as root (debootstrap and chroot)"; exit 2; }

# The README's two commands: the first two lines of its first ```sh block.
mapfile -t cmds < <(awk '/^```sh$/ {inside=1; next} /^```/ && inside {exit} inside && NF {print}' "$proj/README.md")
[ "${#cmds[@]}" -eq 2 ] || { say "$proj/README.md: expected two commands in its first sh block, found ${#cmds[@]}"; exit 2; }
setup_cmd=${cmds[0]}; test_cmd=${cmds[1]}

if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap"
  apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null || { say "cannot install debootstrap"; exit 2; }
fi

root=$(mktemp -d /tmp/earshot-fresh-XXXX)
cleanup() {
  for m in "$root/tmp" "$root/dev/pts" "$root/dev/shm" "$root/dev" "$root/proc"; do
    mountpoint -q "$m" 2>/dev/null && umount -l "$m"
  done
  # never delete the tree while anything is still mounted inside it
  if [ "${KEEP_ROOT:-0}" != "1" ] && ! grep -q " $root/" /proc/mounts; then rm -rf "$root"; fi
}
trap cleanup EXIT

if [ -f "$base" ]; then
  say "unpacking the cached base system $base"
  tar -C "$root" -xzf "$base"
else
  say "building a Debian 12 base system with debootstrap (a few minutes)"
  debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,ca-certificates,git \
    bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 \
    || { say "debootstrap failed; see $root.debootstrap.log"; tail -5 "$root.debootstrap.log" >&2; exit 2; }
  rm -f "$root.debootstrap.log"
  mkdir -p "$(dirname "$base")" && tar -C "$root" -czf "$base.part" . && mv "$base.part" "$base"
fi
# A machine's / is open to every user (mktemp and so the cached base make it 0700); tests run processes as nobody.
chmod 755 "$root"
# The machine's own trust store and resolver, as any machine on this network has them.
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
cp /etc/resolv.conf "$root/etc/resolv.conf"
git clone -q "$proj" "$root/home/project" || { say "cannot clone $proj"; exit 2; }
if [ -d "$shared" ]; then cp -r "$shared" "$root/home/shared"; else say "no shared folder at $shared"; fi
mount --bind /proc "$root/proc"
mount --bind /dev "$root/dev"
mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
mount -t devpts devpts "$root/dev/pts" 2>/dev/null || true
mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"

python=$(chroot "$root" /usr/bin/python3 --version 2>&1)
say "$python in $root; clone of $(git -C "$proj" rev-parse --short HEAD)"
mkdir -p "$logs"
run() {  # run "$1" as a newcomer would, logging to $logs/$2.log; prints nothing of its own
  timeout --kill-after=60 "${limit}m" chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    /bin/bash -lc "cd /home/project && $1" </dev/null 2>&1 | tee "$logs/$2.log"
  return "${PIPESTATUS[0]}"
}
t0=$(date +%s)
say "== setup: $setup_cmd"
run "$setup_cmd" setup; rc1=$?; t1=$(date +%s)
say "setup exit $rc1 after $((t1 - t0)) s"
rc2=1
if [ "$rc1" -eq 0 ]; then
  say "== test: $test_cmd"
  run "$test_cmd" test; rc2=$?
fi
t2=$(date +%s)
say "setup exit $rc1 ($((t1 - t0)) s), test exit $rc2 ($((t2 - t1)) s); logs in $logs"
# The test command's own last line (pytest's summary) closes the output.
[ -s "$logs/test.log" ] && tail -n 1 "$logs/test.log"
[ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ]

#!/bin/sh
# `make pi-rehearsal`: the Raspberry Pi install and reads, rehearsed on this PC before a release
# (docs/install.md, "Before a release"). An arm64 Debian Bookworm root, run under qemu-user with the
# CPU of a Pi 4 (cortex-a72) and, where this qemu has it, of a Pi 5 (cortex-a76):
#   1. the root: built with mmdebstrap under $CACHE/pi-rehearsal (kept; rebuilt when missing),
#      the emulator registered with binfmt_misc (or, where that cannot be mounted, run by proot -q);
#   2. docs/install.md's Raspberry Pi steps, as the page gives them, on a fresh clone of this
#      checkout's commit; what only Raspberry Pi OS has is named and stood in for, or skipped with
#      the reason (scripts/pi_rehearsal.py, PLAN);
#   3. dicetable --version, the demo (dicetable run) to its end, and dicetable read --json over the
#      drawn scenes and the held-out photos of $DATASETS, compared with the same reads on this PC
#      in a venv with the versions the Pi got (scripts/pi_rehearsal.py compare);
#   4. the part of the test suite that finishes in a few minutes under emulation ($TESTS).
# The last line is `pi-rehearsal: ok (N frames compared)` (exit 0) or `pi-rehearsal: failed: ...`
# (exit 1). Needs root (mount, chroot, apt-get). CACHE and DATASETS default to ../.cache and
# ../shared/datasets beside the main checkout.
set -eu

say() { echo "pi-rehearsal: $*"; }
STEP="starting"
FAILURES=""
FINAL=""
# Whatever stops the script, its last line says so, and its status is 0 or 1.
finish() {
    status=$?
    if [ -z "$FINAL" ]; then
        echo "pi-rehearsal: failed: $STEP (exit status $status; see above)"
        exit 1
    fi
}
trap finish EXIT
fail() { FINAL=1; echo "pi-rehearsal: failed: $*"; exit 1; }
failed() { say "FAILED: $*"; FAILURES="${FAILURES:+$FAILURES; }$*"; }
clock() { date +%s; }
took() { echo "$(( $(clock) - $1 )) s"; }

REPO=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || fail "needs root, to mount, chroot and install Debian packages (sudo make pi-rehearsal)"
COMMON=$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir) || fail "$REPO is not a git checkout"
BESIDE=$(dirname "$(dirname "$COMMON")")  # the folder holding the main checkout
CACHE=${CACHE:-$BESIDE/.cache}
DATASETS=${DATASETS:-$BESIDE/shared/datasets}
PYTHON=${PYTHON:-python3}
STATE=$CACHE/pi-rehearsal
ROOT=$STATE/root
OUT=$STATE/out
INPUTS=$STATE/inputs
MIRROR=http://deb.debian.org/debian
SECURITY=http://deb.debian.org/debian-security
#: lgpio's release on PyPI, as Raspberry Pi OS's python3-lgpio packages it.
LGPIO=0.2.2.0
#: The tests run under emulation: the reader's networks, its drawn scenes and the held-out photos,
#: the GPIO devices on mock pins, the display's serial link, the rules' payouts, the journal.
#: About 2.5 minutes at cortex-a72; the whole suite would take most of an hour there.
TESTS="tests/reader/test_reader_nets.py tests/reader/test_reader_detect.py tests/reader/test_reader_drawn.py
tests/reader/test_reader_photos.py tests/reader/test_reader_judge.py tests/reader/test_reader_pips.py
tests/reader/test_reader_second_look.py tests/gpio tests/display/test_display_link_protocol.py
tests/rules/test_rules_craps_payouts.py tests/rules/test_rules_hazard_bang_payouts.py
tests/controller/test_controller_journal.py"
START=$(clock)
mkdir -p "$STATE" "$OUT" "$INPUTS" "$STATE/pip" "$STATE/wheels"
INPUTS=$(cd "$INPUTS" && pwd -P)
if [ -d "$DATASETS" ]; then DATASETS=$(cd "$DATASETS" && pwd -P); fi

STEP="installing the emulator"
need() {  # need COMMAND DEBIAN-PACKAGE
    command -v "$1" >/dev/null 2>&1 || sh "$REPO/scripts/apt-install.sh" "$2" || fail "cannot install Debian's $2"
}
need qemu-aarch64-static qemu-user-static
need mmdebstrap mmdebstrap
QEMU=$(command -v qemu-aarch64-static)
CPUS=cortex-a72
if "$QEMU" -cpu help | grep -qw cortex-a76; then
    CPUS="cortex-a72 cortex-a76"
else
    say "this qemu ($("$QEMU" --version | head -n 1)) has no cortex-a76: the Pi 5's core is not rehearsed"
fi

# The kernel runs arm64 programs through qemu once binfmt_misc knows it, with the F flag (the
# interpreter opened now, so it need not exist inside the root). Debian's registration is used.
register_binfmt() {
    entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
    [ -e /proc/sys/fs/binfmt_misc/register ] \
        || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || return 1
    if [ -e "$entry" ]; then
        grep -q '^enabled' "$entry" && grep -q '^flags:.*F' "$entry"
        return
    fi
    cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register 2>/dev/null
}
EMULATOR=${PI_REHEARSAL_EMULATOR:-}
if [ -z "$EMULATOR" ]; then
    if register_binfmt; then EMULATOR=chroot; else EMULATOR=proot; fi
fi
if [ "$EMULATOR" = proot ]; then
    say "binfmt_misc cannot be mounted or registered here: each arm64 program runs under proot -q"
    need proot proot
    need debootstrap debootstrap
fi
say "emulator: $("$QEMU" --version | head -n 1), by $EMULATOR, CPUs: $CPUS"

# in_root CPU NET COMMAND...: COMMAND in the root, in a clean environment, on the emulated CPU.
# NET is "private" for a network namespace of its own (a loopback only), else "host".
in_root() {
    cpu=$1 net=$2
    shift 2
    set -- env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        QEMU_CPU="$cpu" "$@"
    unshare_net=""
    [ "$net" = private ] && unshare_net=--net
    mkdir -p "$ROOT/root/.cache/pip" "$ROOT/srv/wheels" "$ROOT$INPUTS"
    [ ! -d "$DATASETS" ] || mkdir -p "$ROOT$DATASETS" "$ROOT/opt/shared/datasets"
    if [ "$EMULATOR" = chroot ]; then
        # A mount namespace of its own: the mounts end with the command, whatever stops it. The
        # photos are seen at their own path (the reads) and as the clone's ../shared/datasets (the tests).
        R=$ROOT P=$STATE/pip W=$STATE/wheels I=$INPUTS D=$DATASETS N=$net \
        QEMU_CPU=$cpu unshare --mount --propagation private $unshare_net sh -c '
            set -e
            [ "$N" = host ] || ip link set lo up
            mount -t proc proc "$R/proc"
            mount --rbind /dev "$R/dev"
            mount --rbind /sys "$R/sys"
            mount --bind "$P" "$R/root/.cache/pip"
            mount --bind "$W" "$R/srv/wheels"
            mount --bind -o ro "$I" "$R$I"
            [ ! -d "$D" ] || mount --bind -o ro "$D" "$R$D"
            [ ! -d "$D" ] || mount --bind -o ro "$D" "$R/opt/shared/datasets"
            exec chroot "$R" "$@"' in-root "$@"
    else
        binds="-b /dev -b /proc -b /sys -b $STATE/pip:/root/.cache/pip -b $STATE/wheels:/srv/wheels -b $INPUTS"
        [ ! -d "$DATASETS" ] || binds="$binds -b $DATASETS -b $DATASETS:/opt/shared/datasets"
        if [ "$net" = host ]; then
            # shellcheck disable=SC2086 # the binds are words
            proot -0 -q "$QEMU -cpu $cpu" -r "$ROOT" $binds -w / "$@"
        else
            # shellcheck disable=SC2086
            unshare --net sh -c 'ip link set lo up && exec "$@"' in-net proot -0 -q "$QEMU -cpu $cpu" -r "$ROOT" \
                $binds -w / "$@"
        fi
    fi
}

STEP="building the arm64 root"
if [ ! -f "$ROOT/etc/pi-rehearsal-root" ]; then
    say "building an arm64 Debian Bookworm root in $ROOT (once; kept between runs)"
    t=$(clock)
    rm -rf "$ROOT"
    sources="deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SECURITY bookworm-security main"
    # What a fresh Raspberry Pi OS Lite has that a minimal Debian has not: python3, sudo, certificates.
    if [ "$EMULATOR" = chroot ]; then
        nice mmdebstrap --quiet --arch=arm64 --variant=minbase --include=python3,sudo,ca-certificates \
            bookworm "$ROOT" "$sources" || fail "mmdebstrap could not build the root"
    else
        nice debootstrap --foreign --arch=arm64 --variant=minbase --include=python3,sudo,ca-certificates \
            bookworm "$ROOT" "$MIRROR" >/dev/null || fail "debootstrap could not start the root"
        proot -0 -q "$QEMU -cpu cortex-a72" -r "$ROOT" -b /dev -b /proc -b /sys /debootstrap/debootstrap \
            --second-stage >/dev/null || fail "debootstrap's second stage failed under proot"
        printf '%s\n' "$sources" > "$ROOT/etc/apt/sources.list"
    fi
    # Only the emulated root needs this: a TLS-inspecting proxy's certificate authorities, as
    # this PC trusts them, for apt and for pip (which otherwise trusts only its own bundle).
    if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
        cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
        in_root cortex-a72 host update-ca-certificates >/dev/null
        printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > "$ROOT/etc/pip.conf"
    fi
    touch "$ROOT/etc/pi-rehearsal-root"
    say "root built in $(took "$t")"
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
in_root cortex-a72 host true || fail "the root's programs do not run under the emulator"
# The pin is seen from inside: the kernel's HWCAP as the emulator gives it. A Cortex-A76 has the
# dot-product and half-precision vector instructions (ARMv8.2) an A72 lacks; OpenCV's DNN picks
# kernels by them, so a pin that did not take would rehearse the wrong Pi.
HWCAP='import ctypes
getauxval = ctypes.CDLL(None).getauxval
getauxval.restype = ctypes.c_ulong
hwcap = getauxval(16)  # AT_HWCAP
print(" ".join(f"{name}={int(bool(hwcap >> bit & 1))}" for name, bit in (("asimdhp", 10), ("asimddp", 20))))'
for cpu in $CPUS; do
    features=$(in_root "$cpu" host python3 -c "$HWCAP") || fail "the root's python3 cannot read its HWCAP"
    case "$cpu:$features" in
        cortex-a72:"asimdhp=0 asimddp=0"|cortex-a76:"asimdhp=1 asimddp=1") say "emulated $cpu: $features" ;;
        *) fail "QEMU_CPU=$cpu did not take: the root sees $features" ;;
    esac
done

STEP="standing in for python3-lgpio"
# Raspberry Pi OS's python3-lgpio: lgpio's PyPI source built with its C library inside (PYPI=1),
# once (the wheel is kept), and installed for the system's Python, where a Pi has it.
if ! in_root cortex-a72 host python3 -c "import lgpio" 2>/dev/null; then
    if ! ls "$STATE/wheels/lgpio-$LGPIO-"*.whl >/dev/null 2>&1; then
        say "building lgpio $LGPIO from its source for the root (once; the wheel is kept)"
        t=$(clock)
        in_root cortex-a72 host sh -c "set -e
            apt-get update -q >/dev/null
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q gcc swig python3-dev python3-venv >/dev/null
            python3 -m venv /tmp/lgpio-build
            PYPI=1 /tmp/lgpio-build/bin/pip wheel --quiet --no-deps --use-pep517 --no-binary lgpio \
                lgpio==$LGPIO -w /srv/wheels
            rm -rf /tmp/lgpio-build" || fail "lgpio $LGPIO could not be built in the root"
        say "lgpio built in $(took "$t")"
    fi
    in_root cortex-a72 host sh -c 'python3 -m zipfile -e /srv/wheels/lgpio-*.whl \
        "$(python3 -c "import site; print(site.getsitepackages()[0])")"' || fail "lgpio's wheel did not install"
fi

STEP="cloning the checkout"
COMMIT=$(git -C "$REPO" rev-parse HEAD)
if [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no)" ]; then
    say "uncommitted changes are not rehearsed: the commit $COMMIT is"
fi
MIRROR_GIT=$ROOT/srv/dicetable.git
[ -d "$MIRROR_GIT" ] || git init --quiet --bare "$MIRROR_GIT"
git -C "$REPO" push --quiet --no-verify --force "$MIRROR_GIT" HEAD:refs/heads/rehearsed
git -C "$MIRROR_GIT" symbolic-ref HEAD refs/heads/rehearsed
# This PC's copy of the same commit, for the reference reads and the rehearsal's own helper.
SRC=$STATE/host/src
if [ -d "$SRC/.git" ]; then
    git -C "$SRC" fetch --quiet "$MIRROR_GIT" rehearsed
    git -C "$SRC" checkout --quiet --force --detach FETCH_HEAD
else
    git clone --quiet "$MIRROR_GIT" "$SRC"
fi
say "rehearsing $(git -C "$SRC" log -1 --format='%h %s')"

STEP="the install steps of docs/install.md"
t=$(clock)
"$PYTHON" "$SRC/scripts/pi_rehearsal.py" install-script "$SRC/docs/install.md" /srv/dicetable.git \
    > "$ROOT/tmp/pi-install.sh" || fail "docs/install.md and the rehearsal's plan no longer fit (above)"
rm -rf "$ROOT/opt/dicetable"
# Output shown as it comes and kept: the check's line is looked for afterwards.
( set +e; in_root cortex-a72 host sh /tmp/pi-install.sh < /dev/null; echo $? > "$OUT/install.status" ) 2>&1 \
    | tee "$OUT/install.log"
[ "$(cat "$OUT/install.status")" -eq 0 ] || fail "docs/install.md's steps failed in the root (above)"
grep -q '^ok 1\.' "$OUT/install.log" || fail "the install's check did not print ok with a NumPy 1.x"
say "installed in $(took "$t")"
VERSIONS=$(in_root cortex-a72 host /opt/dicetable/.venv/bin/python -c \
    "from importlib.metadata import version; print(version('numpy'), version('opencv-python-headless'))")
NUMPY=${VERSIONS% *}
OPENCV=${VERSIONS#* }
say "the Pi's venv: NumPy $NUMPY, OpenCV $OPENCV"

STEP="the PC's reference venv"
# The PC reads with the versions the Pi got (the pi extra's pins as pip resolved them there);
# lgpio is left out: the reads never touch the GPIO.
HOSTVENV=$STATE/host/venv
WANT="$(sha256sum "$SRC/pyproject.toml" | cut -c1-16) numpy==$NUMPY opencv-python-headless==$OPENCV"
if [ "$(cat "$HOSTVENV/.rehearsal" 2>/dev/null)" != "$WANT" ]; then
    t=$(clock)
    "$PYTHON" -m venv --clear "$HOSTVENV"
    "$HOSTVENV/bin/python" -m pip install --quiet -e "$SRC" "numpy==$NUMPY" "opencv-python-headless==$OPENCV" \
        || fail "the PC's reference venv could not be installed"
    echo "$WANT" > "$HOSTVENV/.rehearsal"
    say "the PC's reference venv installed in $(took "$t")"
fi
HOSTPY=$HOSTVENV/bin/python

STEP="the program in the root"
say "dicetable --version: $(in_root cortex-a72 host /opt/dicetable/.venv/bin/dicetable --version)"
t=$(clock)
# The demo as `make run` plays it, its console on 127.0.0.1:8080 of a network of its own.
if in_root cortex-a72 private sh -c 'rm -rf /tmp/demo && mkdir /tmp/demo && cd /tmp/demo &&
        exec /opt/dicetable/.venv/bin/dicetable run' > "$OUT/demo.log" 2>&1; then
    say "the demo ran to its end in $(took "$t"):"
    tail -n 3 "$OUT/demo.log" | sed 's/^/    /'
else
    tail -n 20 "$OUT/demo.log"
    failed "the demo (dicetable run) did not end well: $OUT/demo.log"
fi

STEP="the reads"
"$HOSTPY" "$SRC/scripts/pi_rehearsal.py" frames "$INPUTS" --datasets "$DATASETS"
# read_groups DICETABLE: every listed frame read, one dicetable read per count of dice.
READ_GROUPS='for list in "$0"/groups/*.txt; do
    xargs -d "\n" "$1" read --json --expect "$(basename "$list" .txt)" < "$list" || true
done'
t=$(clock)
for cpu in $CPUS; do
    in_root "$cpu" host sh -c "$READ_GROUPS" "$INPUTS" /opt/dicetable/.venv/bin/dicetable \
        > "$OUT/reads-$cpu.jsonl" 2> "$OUT/reads-$cpu.log" &
done
sh -c "$READ_GROUPS" "$INPUTS" "$HOSTVENV/bin/dicetable" > "$OUT/reads-pc.jsonl" 2> "$OUT/reads-pc.log"
wait
say "read $(wc -l < "$OUT/reads-pc.jsonl") frames on the PC and on each emulated CPU in $(took "$t")"
FRAMES=$(wc -l < "$OUT/reads-pc.jsonl")
for cpu in $CPUS; do
    if ! "$HOSTPY" "$SRC/scripts/pi_rehearsal.py" compare "$OUT/reads-pc.jsonl" "$OUT/reads-$cpu.jsonl" \
            --model "$SRC/vision/models" --label "arm64 $cpu against the PC"; then
        grep -v '^$' "$OUT/reads-$cpu.log" | tail -n 5
        failed "the reads on arm64 $cpu differ from the PC's (above)"
    fi
done

STEP="the tests under emulation"
t=$(clock)
say "tests under emulation (cortex-a72): $(echo $TESTS)"
# pytest and hypothesis only: the dev extra's browser, PostgreSQL and MicroPython are not needed here.
in_root cortex-a72 host /opt/dicetable/.venv/bin/pip install --quiet "pytest>=8" "hypothesis>=6.100" \
    || fail "pytest could not be installed in the root"
# shellcheck disable=SC2086 # TESTS is a list of words
if in_root cortex-a72 private sh -c 'cd /opt/dicetable && exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"' \
        in-root $TESTS > "$OUT/tests.log" 2>&1; then
    say "tests passed in $(took "$t"): $(tail -n 1 "$OUT/tests.log")"
else
    tail -n 30 "$OUT/tests.log"
    failed "tests under emulation: $OUT/tests.log"
fi

say "took $(took "$START") in all"
FINAL=1
if [ -n "$FAILURES" ]; then
    echo "pi-rehearsal: failed: $FAILURES"
    exit 1
fi
echo "pi-rehearsal: ok ($FRAMES frames compared)"

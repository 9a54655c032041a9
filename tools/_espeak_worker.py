"""Render one text with libespeak-ng in a fresh process and report its word events.

Run as ``python -m tools._espeak_worker VOICE SPEED OUT.raw`` with the text on
standard input. Writes the samples (int16, little-endian, mono) to ``OUT.raw``
and prints one JSON object on standard output::

    {"sample_rate": 22050, "n_samples": 195057, "events": [[char_offset, sample], ...]}

``char_offset`` is the 0-based character offset (code points) in the text where
espeak-ng starts a word, ``sample`` the output sample at which it starts.

Why a separate process: libespeak-ng keeps voice and variant state between
calls, so the same text renders differently depending on what the process
spoke before. A fresh process per rendering makes every rendering depend on
(text, voice, speed) only. Standard library only, so it starts fast.

Exit codes: 0 done, 3 unknown voice, 4 library missing, 5 synthesis failed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import sys

_AUDIO_OUTPUT_SYNCHRONOUS = 2
_INITIALIZE_DONT_EXIT = 0x8000
_POS_CHARACTER = 1
_CHARS_UTF8 = 1
_PARAM_RATE = 1
_EVENT_LIST_TERMINATED = 0
_EVENT_WORD = 1

EXIT_UNKNOWN_VOICE = 3
EXIT_NO_LIBRARY = 4
EXIT_SYNTH_FAILED = 5


class _EventId(ctypes.Union):
    _fields_ = [("number", ctypes.c_int), ("name", ctypes.c_char_p), ("string", ctypes.c_char * 8)]


class _Event(ctypes.Structure):
    # espeak_EVENT from speak_lib.h
    _fields_ = [
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", _EventId),
    ]


class _Voice(ctypes.Structure):
    # espeak_VOICE from speak_lib.h
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("languages", ctypes.c_char_p),
        ("identifier", ctypes.c_char_p),
        ("gender", ctypes.c_ubyte),
        ("age", ctypes.c_ubyte),
        ("variant", ctypes.c_ubyte),
        ("xx1", ctypes.c_ubyte),
        ("score", ctypes.c_int),
        ("spare", ctypes.c_void_p),
    ]


_SynthCallback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event))


def _load_library() -> ctypes.CDLL | None:
    for name in ("libespeak-ng.so.1", ctypes.util.find_library("espeak-ng")):
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


def _set_voice(lib: ctypes.CDLL, voice: str) -> bool:
    # Same two steps as the espeak-ng command line: by name, then by language.
    if lib.espeak_SetVoiceByName(voice.encode()) == 0:
        return True
    selector = _Voice()
    selector.languages = voice.encode()
    return lib.espeak_SetVoiceByProperties(ctypes.byref(selector)) == 0


def main(argv: list[str]) -> int:
    voice, speed, out_path = argv[0], int(argv[1]), argv[2]
    text = sys.stdin.buffer.read().decode("utf-8")
    lib = _load_library()
    if lib is None:
        print("libespeak-ng cannot be loaded", file=sys.stderr)
        return EXIT_NO_LIBRARY
    sample_rate = lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, None, _INITIALIZE_DONT_EXIT)
    if sample_rate <= 0:
        print("espeak_Initialize failed", file=sys.stderr)
        return EXIT_NO_LIBRARY
    if not _set_voice(lib, voice):
        print(f"espeak-ng has no voice {voice!r}", file=sys.stderr)
        return EXIT_UNKNOWN_VOICE
    lib.espeak_SetParameter(_PARAM_RATE, speed, 0)

    chunks: list[bytes] = []
    events: list[list[int]] = []

    def on_audio(wav: ctypes.Array, n_samples: int, event_list: ctypes.Array) -> int:
        if n_samples > 0 and wav:
            chunks.append(ctypes.string_at(wav, 2 * n_samples))
        i = 0
        while event_list[i].type != _EVENT_LIST_TERMINATED:
            event = event_list[i]
            if event.type == _EVENT_WORD and event.length > 0:
                events.append([event.text_position - 1, event.sample])
            i += 1
        return 0

    callback = _SynthCallback(on_audio)
    lib.espeak_SetSynthCallback(callback)
    encoded = text.encode("utf-8")
    status = lib.espeak_Synth(encoded, len(encoded) + 1, 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None)
    lib.espeak_Synchronize()
    if status != 0:
        print(f"espeak_Synth failed with status {status}", file=sys.stderr)
        return EXIT_SYNTH_FAILED
    audio = b"".join(chunks)
    if sys.byteorder != "little":
        import array

        swapped = array.array("h", audio)
        swapped.byteswap()
        audio = swapped.tobytes()
    with open(out_path, "wb") as handle:
        handle.write(audio)
    json.dump({"sample_rate": sample_rate, "n_samples": len(audio) // 2, "events": events}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

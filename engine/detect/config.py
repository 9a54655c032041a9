"""Frame sizes, thresholds and defaults of the audio detectors, in one place.

Kernels take every number they need as an argument; the defaults come from here.
Times are in seconds, levels in dB, rates in events per second unless a name says otherwise.
"""

from __future__ import annotations

# --- framing -------------------------------------------------------------------------------------

#: Sample rates the analyzer accepts (webrtcvad's set), Hz.
SAMPLE_RATES = (8000, 16000, 32000, 48000)

#: Hop between feature frames, in seconds (100 frames per second).
HOP_SECONDS = 0.01

#: Length of the Hann window of one feature frame, in seconds.
WINDOW_SECONDS = 0.032

#: webrtcvad frame length, in seconds (it accepts 0.01, 0.02 and 0.03).
VAD_FRAME_SECONDS = 0.03

#: Frames whose power is below this floor are treated as digital silence, in dBFS.
FLOOR_DBFS = -100.0

#: Band whose level tracks vowels (syllable nuclei), Hz.
VOWEL_BAND_HZ = (300.0, 2500.0)

#: Band over which spectral flatness is measured, Hz (the top is capped at 0.45 * sr).
FLATNESS_BAND_HZ = (250.0, 7000.0)

#: Number of mel bands behind flatness and spectral flux.
N_MELS = 40

#: Cepstral coefficients kept per frame (c1..c8 of the log mel spectrum: the spectral envelope).
N_CEPSTRA = 8

#: Bytes of a feature column held in memory while a recording streams; past this they go to a temporary
#: file (an hour of all columns is about 16 MB: held in memory, a three-hour file's worker grew by 48 MB).
FEATURE_SPILL_BYTES = 1 << 20

#: Pitch range searched for voicing (normalised autocorrelation peak), Hz.
PITCH_RANGE_HZ = (75.0, 400.0)

#: Chroma vectors this far apart are compared for chroma stability, in seconds.
CHROMA_LAG_SECONDS = 0.1

#: Spectral shapes this far apart are compared for shape stability, in seconds; bands up to SHAPE_TOP_HZ.
SHAPE_LAG_SECONDS = 0.05
SHAPE_TOP_HZ = 6000.0

# --- silence -------------------------------------------------------------------------------------

#: The background level of a recording is this percentile of its frame levels.
FLOOR_PERCENTILE = 5.0

#: Frames louder than the background by this much are sound, not silence, dB.
SILENCE_MARGIN_DB = 12.0

#: ... and in any case louder than this, dBFS (a near-digital-silence file has no "sound" at -90 dB).
ACTIVE_MIN_DBFS = -60.0

#: ... but louder than this is always sound, dBFS (a recording with no quiet moment has no background to find).
ACTIVE_MAX_DBFS = -45.0

# --- sound detectors (music, applause, laughter) -------------------------------------------------
# Each detector turns window statistics into a per-frame score in [0, 1] as a product of
# linear ramps: a pair (a, b) is 0 at a and 1 at b (a > b makes a falling ramp). A region
# starts where the score reaches 1 - sensitivity and extends while it stays above
# LOW_FRACTION of that; gaps up to max_gap are bridged and shorter runs than min are dropped.

#: Default sensitivity of every sound detector, in (0, 1): higher finds more.
DEFAULT_SENSITIVITY = 0.5

#: Which detector finds music, applause and laughter: ``"rules"`` (the hand-set rules),
#: ``"learned"`` (the classifier on frame features) or ``"audioset"`` (the classifier that also
#: reads AudioSet scores; ingest's default). Held out (bench/results/detect_loso.md) the AudioSet
#: classifier finds music and applause far better than the rules and raises no false alarm on
#: LibriVox (rules: 63 laughter events per hour); laughter, taken zero-shot from AudioSet
#: scores, it finds better too.
SOUND_MODELS = ("rules", "learned", "audioset")
DEFAULT_SOUND_MODEL = "audioset"

#: Inside a music event, speech stays audible to the recogniser where webrtcvad hears speech and
#: AudioSet's "Speech" logit (interpolated to 0.1 s, median over 0.9 s) reaches this. On a sample of
#: ten corpus music clips (training packages) as beds under LibriVox speech, the logit's 10th
#: percentile was -1.6 or more; on the same music alone its 90th percentile was -4.8 or less.
SPEECH_UNDER_MUSIC_LOGIT = -3.0
#: Speech under music shorter than this is not kept audible, s.
SPEECH_UNDER_MUSIC_MIN_SECONDS = 0.5

#: YAMNet hears speech where the best logit of its speech classes (median over 0.9 s) reaches this: a
#: steady-noise event is cut there, and ambience (engine/detect/ambience.py) is only found below it.
#: The speech-under-music threshold, set on training packages, reused unchanged.
SPEECH_PRESENT_LOGIT = SPEECH_UNDER_MUSIC_LOGIT
#: Ambience shorter than this is no event, s; gaps up to AMBIENCE_MAX_GAP_SECONDS are bridged.
AMBIENCE_MIN_SECONDS = 0.5
AMBIENCE_MAX_GAP_SECONDS = 0.3
#: An applause or laughter event is ``audience`` when the detector's smoothed score of the other kind averages
#: at least this share of its own over the event (set before any result was seen: one score at least half the
#: other is no clear call).
AUDIENCE_SCORE_SHARE = 0.5
#: A music, applause or laughter event is relabelled ``noise`` only when YAMNet's best ambience logit beats the
#: kind's own by this much over the event (logits): YAMNet hears some real applause as a vehicle by 0.6.
AMBIENCE_RELABEL_MARGIN_LOGIT = 3.0
#: A music event is cut where this long of silence (frames not sounding, digital silence included)
#: runs inside it, s: a pause in the audio ends the piece, a dip of a bed under a voice does not.
MUSIC_SPLIT_SILENCE_SECONDS = 1.0

#: A tone event of the learned classifier is kept only when the median log10 spectral flatness
#: of its loud frames is below this: beeps sit at -4.8 or lower, voiced speech above -3.1.
TONE_MAX_FLATNESS = -4.0

#: The hysteresis low threshold as a fraction of the high one.
LOW_FRACTION = 0.6

#: Windows over which the statistics are averaged, seconds.
MUSIC_WINDOW_SECONDS = 1.0
APPLAUSE_WINDOW_SECONDS = 1.0
LAUGHTER_WINDOW_SECONDS = 1.0

#: Music: held chords keep the chroma vector still, notes are voiced, and the level is continuous.
MUSIC_CHROMA_STABILITY = (0.86, 0.93)
MUSIC_VOICING = (0.55, 0.75)
MUSIC_FLUX = (0.32, 0.2)
MUSIC_ACTIVE_FRACTION = (0.6, 0.9)
MUSIC_MIN_SECONDS = 1.5
MUSIC_MAX_GAP_SECONDS = 0.5

#: Applause: broadband (flat, but less flat than white or pink noise), unvoiced, continuous.
APPLAUSE_FLATNESS_RISE = (-0.95, -0.75)
APPLAUSE_FLATNESS_FALL = (-0.28, -0.38)
APPLAUSE_VOICING = (0.58, 0.5)
APPLAUSE_CHROMA_STABILITY = (0.93, 0.9)
APPLAUSE_ACTIVE_FRACTION = (0.7, 0.95)
APPLAUSE_MIN_SECONDS = 1.0
APPLAUSE_MAX_GAP_SECONDS = 0.3

#: Laughter: bursts repeating 4.3-7 times a second (the level envelope's autocorrelation has
#: a local peak at that lag, well above the trough between bursts; natural speech's syllables
#: come at about 4 a second, espeak-ng's faster), each burst one held breathy vowel: within
#: bursts the spectral shape holds still (speech articulates, so its shape changes every few
#: tens of ms), the chroma is less stable than in speech (breath noise, wandering pitch), and
#: the level swings widely.
LAUGHTER_PERIODICITY = (0.4, 0.65)
LAUGHTER_SHAPE_STABILITY = (0.72, 0.8)
LAUGHTER_CHROMA_STABILITY = (0.84, 0.78)
LAUGHTER_LEVEL_STD_DB = (4.0, 6.0)
LAUGHTER_BURST_HZ = (4.3, 7.0)
#: A bout of laughter is a vocal event of its own: the stretch of sound around it (pauses up
#: to LAUGHTER_ISLAND_GAP_SECONDS bridged) is short, unlike running speech, whose rhythm can
#: mimic laughter's for a second. Laughter on top of speech is therefore not found.
LAUGHTER_ISLAND_SECONDS = (4.0, 3.5)
LAUGHTER_ISLAND_GAP_SECONDS = 0.25
LAUGHTER_TROUGH_MIN_HZ = 7.0
LAUGHTER_RANGE_DB = 30.0
LAUGHTER_STEP_SECONDS = 0.05
LAUGHTER_MIN_CORE_SECONDS = 0.3
LAUGHTER_GROW_SECONDS = 0.6
LAUGHTER_MIN_SECONDS = 0.8
LAUGHTER_MAX_GAP_SECONDS = 0.3

# --- speech (webrtcvad) --------------------------------------------------------------------------

#: webrtcvad mode by default: 0 (keeps most) to 3 (rejects most non-speech).
DEFAULT_VAD_AGGRESSIVENESS = 2

#: Speech opens after this long of consecutive speech frames, seconds.
SPEECH_ONSET_SECONDS = 0.09

#: ... and stays open this long after the last speech frame (hangover), seconds.
DEFAULT_SPEECH_HANGOVER_SECONDS = 0.3

#: Pauses up to this long inside speech are bridged; shorter speech is dropped, seconds.
SPEECH_MAX_GAP_SECONDS = 1.0
SPEECH_MIN_SECONDS = 1.0

# --- speech rate (de Jong and Wempe 2009) ---------------------------------------------------------

#: The vowel-band level is smoothed over this long before peak picking, seconds.
NUCLEUS_SMOOTH_SECONDS = 0.05

#: A nucleus must stand this far above the dip to the next peak, dB (de Jong and Wempe: 2 dB).
NUCLEUS_MIN_DIP_DB = 2.0

#: ... be voiced at least this much (normalised autocorrelation peak) ...
NUCLEUS_MIN_VOICING = 0.45

#: ... and be no more than this far below the loud end of the recording's speech (its 99th
#: percentile level), dB (de Jong and Wempe: -25 dB).
NUCLEUS_FLOOR_BELOW_PEAK_DB = 25.0

#: Rates are compared over consecutive stretches holding this much speech, seconds ...
RATE_WINDOW_SPEECH_SECONDS = 10.0

#: A stretch boundary moves to a pause that starts within this long, seconds.
RATE_CUT_LOOK_AHEAD_SECONDS = 1.0

#: ... and a stretch with less speech than this (a remnant) is not judged, seconds.
RATE_MIN_SPEECH_SECONDS = 4.0

#: A stretch is fast (slow) when its rate is this fraction above (below) the recording's median.
DEFAULT_RATE_DEVIATION = 0.2

#: Word rates count only in stretches with at least this many transcribed words.
RATE_MIN_WORDS = 8

# --- X-duration ----------------------------------------------------------------------------------

#: Words recognised with less confidence than this count as untranscribed sound. Off (0) by
#: default: PocketSphinx's word posteriors are low even for right words (median about 0.3 on
#: clean espeak-ng speech), and at 0.1 a third of the words of a 90-second broadcast got
#: X-duration, which cut it into 33 stories instead of 3 (6 with the threshold off).
#: Unknown-word tokens and words heard inside music or noise still count.
DEFAULT_MIN_WORD_CONFIDENCE = 0.0

#: Words lying mostly inside a detected music/applause/laughter/noise event, widened by this
#: much on each side, count as untranscribed sound (recognisers "hear" words in music), seconds.
XD_SOUND_MARGIN_SECONDS = 0.3

#: Recogniser tokens that stand for "something, not a word".
UNKNOWN_WORDS = frozenset({"[unk]", "<unk>", "[noise]", "[laughter]", "<sil>"})

#: Steady sound ("noise": crowds, hiss, rumble, traffic): the spectral shape holds still in
#: the louder frames and changes little frame to frame, and the level stays within a few dB,
#: unlike speech, which articulates and pauses (its level swings by 8 dB and more).
NOISE_WINDOW_SECONDS = 1.0
NOISE_LEVEL_STD_DB = (6.0, 4.5)
NOISE_SHAPE_STABILITY = (0.9, 0.94)
NOISE_FLUX = (0.32, 0.27)
#: ... or hiss and static: a spectrum nearly as flat as white noise (applause sits below -0.46).
NOISE_FLATNESS = (-0.45, -0.35)
NOISE_ACTIVE_FRACTION = (0.6, 0.9)
NOISE_MIN_SECONDS = 0.5
NOISE_MIN_CORE_SECONDS = 0.3
NOISE_GROW_SECONDS = 0.6
NOISE_MAX_GAP_SECONDS = 0.3

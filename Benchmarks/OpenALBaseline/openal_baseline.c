// SPDX-License-Identifier: GPL-3.0-or-later
/* OpenAL Soft baseline for `make bench`: renders the bench voice set of `bendsynth-bench`
 * (Sources/BendBench/MixerBench.swift: same tone, same start and per-period pitch/gain
 * formulas) through OpenAL Soft's loopback device (ALC_SOFT_loopback), stereo float at
 * the given rate, and prints ns per voice-frame with the per-period property updates and
 * alcRenderSamplesSOFT timed together (as bendsynth times its event pushes and render).
 *
 * The resampler and the source limit come from the config file that ALSOFT_CONF names
 * (`resampler = linear|cubic`, `sources = N`), written by Benchmarks/bench.sh.
 *
 * usage: openal_baseline VOICES PERIOD SECONDS [RATE]
 * output: one line, key=value: voices period ns rtf peak playing resampler
 * exit: 0 ok; 1 OpenAL failure, silent output, or fewer than VOICES sources playing. */
#include <AL/al.h>
#include <AL/alc.h>
#include <AL/alext.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static float start_ratio(int v) { return 0.5f + 1.5f * (float)((v * 37) % 97) / 96.0f; }
static float move_ratio(int v, int p) { return 0.5f + 1.5f * (float)((v * 7 + p) % 97) / 96.0f; }
static float move_gain(int v, int p, int n) { return (0.3f + 0.2f * (float)((v + p) % 5) / 4.0f) / sqrtf((float)n); }

static int fail(const char *what, int code) {
    fprintf(stderr, "openal_baseline: %s failed (0x%x)\n", what, code);
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: openal_baseline VOICES PERIOD SECONDS [RATE]\n"); return 2; }
    int n = atoi(argv[1]), period = atoi(argv[2]);
    double seconds = atof(argv[3]);
    int rate = argc > 4 ? atoi(argv[4]) : 48000;
    if (n < 1 || period < 1 || seconds <= 0 || rate < 8000) { fprintf(stderr, "openal_baseline: bad arguments\n"); return 2; }

    if (!alcIsExtensionPresent(NULL, "ALC_SOFT_loopback")) return fail("ALC_SOFT_loopback", 0);
    LPALCLOOPBACKOPENDEVICESOFT open_loopback = (LPALCLOOPBACKOPENDEVICESOFT)alcGetProcAddress(NULL, "alcLoopbackOpenDeviceSOFT");
    LPALCRENDERSAMPLESSOFT render = (LPALCRENDERSAMPLESSOFT)alcGetProcAddress(NULL, "alcRenderSamplesSOFT");
    ALCdevice *device = open_loopback(NULL);
    if (!device) return fail("alcLoopbackOpenDeviceSOFT", 0);
    ALCint attrs[] = {
        ALC_FORMAT_CHANNELS_SOFT, ALC_STEREO_SOFT, ALC_FORMAT_TYPE_SOFT, ALC_FLOAT_SOFT,
        ALC_FREQUENCY, rate, ALC_MONO_SOURCES, n, ALC_STEREO_SOURCES, 0, ALC_HRTF_SOFT, ALC_FALSE, 0,
    };
    ALCcontext *context = alcCreateContext(device, attrs);
    if (!context || !alcMakeContextCurrent(context)) return fail("alcCreateContext", alcGetError(device));
    ALCint mono = 0;
    alcGetIntegerv(device, ALC_MONO_SOURCES, 1, &mono);

    float *tone = malloc(sizeof(float) * (size_t)rate);
    for (int i = 0; i < rate; i++) {
        double p = 2 * M_PI * 440 * (double)i / rate;
        tone[i] = (float)(0.5 * sin(p) + 0.25 * sin(2 * p) + 0.125 * sin(3 * p));
    }
    ALuint buffer;
    alGenBuffers(1, &buffer);
    alBufferData(buffer, AL_FORMAT_MONO_FLOAT32, tone, (ALsizei)(sizeof(float) * (size_t)rate), rate);
    if (alGetError() != AL_NO_ERROR) return fail("alBufferData (AL_FORMAT_MONO_FLOAT32)", 0);

    ALuint *sources = calloc((size_t)n, sizeof(ALuint));
    for (int v = 0; v < n; v++) {
        alGenSources(1, &sources[v]);
        ALenum e = alGetError();
        if (e != AL_NO_ERROR) {
            fprintf(stderr, "openal_baseline: alGenSources made only %d of %d sources (ALC_MONO_SOURCES %d)\n", v, n, mono);
            return 1;
        }
        alSourcei(sources[v], AL_BUFFER, (ALint)buffer);
        alSourcei(sources[v], AL_LOOPING, AL_TRUE);
        alSourcei(sources[v], AL_SOURCE_RELATIVE, AL_TRUE);
        alSource3f(sources[v], AL_POSITION, 0, 0, 0);
        alSourcef(sources[v], AL_PITCH, start_ratio(v));
        alSourcef(sources[v], AL_GAIN, 0.5f / sqrtf((float)n));
    }
    alSourcePlayv(n, sources);
    if (alGetError() != AL_NO_ERROR) return fail("alSourcePlayv", 0);

    float *out = malloc(sizeof(float) * 2 * (size_t)period);
    int periods = (int)(seconds * rate) / period;
    if (periods < 1) periods = 1;
    double busy = 0;
    float peak = 0;
    for (int p = 0; p < periods; p++) {
        double t0 = now_ns();
        for (int v = 0; v < n; v++) {
            alSourcef(sources[v], AL_PITCH, move_ratio(v, p));
            alSourcef(sources[v], AL_GAIN, move_gain(v, p, n));
        }
        render(device, out, period);
        busy += now_ns() - t0;
        for (int i = 0; i < 2 * period; i++) peak = fmaxf(peak, fabsf(out[i]));
    }
    int playing = 0;
    for (int v = 0; v < n; v++) {
        ALint state = 0;
        alGetSourcei(sources[v], AL_SOURCE_STATE, &state);
        playing += state == AL_PLAYING;
    }
    const char *resampler = getenv("BENCH_RESAMPLER");
    double frames = (double)periods * period;
    double ns = busy / (frames * n);
    printf("voices=%d period=%d resampler=%s ns=%.3f rtf=%.2f peak=%.4f playing=%d\n", n, period,
           resampler ? resampler : "default", ns, (frames / rate) / (busy * 1e-9), peak, playing);
    alSourceStopv(n, sources);
    alDeleteSources(n, sources);
    alDeleteBuffers(1, &buffer);
    alcMakeContextCurrent(NULL);
    alcDestroyContext(context);
    alcCloseDevice(device);
    free(out); free(sources); free(tone);
    if (peak < 1e-4) { fprintf(stderr, "openal_baseline: the output is silent\n"); return 1; }
    if (playing != n) { fprintf(stderr, "openal_baseline: only %d of %d sources playing\n", playing, n); return 1; }
    return 0;
}

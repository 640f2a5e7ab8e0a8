/* Spark's Murmur3_x86_32 (seeded, as used by hash() with seed 42). */
#include "expr/hash.h"
#include <string.h>

#define C1 0xcc9e2d51u
#define C2 0x1b873593u

static uint32_t rotl(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

static uint32_t mix_k1(uint32_t k1)
{
	k1 *= C1;
	k1 = rotl(k1, 15);
	return k1 * C2;
}

static uint32_t mix_h1(uint32_t h1, uint32_t k1)
{
	h1 ^= k1;
	h1 = rotl(h1, 13);
	return h1 * 5 + 0xe6546b64u;
}

static uint32_t fmix(uint32_t h1, uint32_t len)
{
	h1 ^= len;
	h1 ^= h1 >> 16;
	h1 *= 0x85ebca6bu;
	h1 ^= h1 >> 13;
	h1 *= 0xc2b2ae35u;
	h1 ^= h1 >> 16;
	return h1;
}

int32_t ex_murmur3_int(int32_t v, int32_t seed)
{
	uint32_t h1 = mix_h1((uint32_t)seed, mix_k1((uint32_t)v));
	return (int32_t)fmix(h1, 4);
}

int32_t ex_murmur3_long(int64_t v, int32_t seed)
{
	uint32_t low = (uint32_t)(uint64_t)v, high = (uint32_t)((uint64_t)v >> 32);
	uint32_t h1 = mix_h1((uint32_t)seed, mix_k1(low));
	h1 = mix_h1(h1, mix_k1(high));
	return (int32_t)fmix(h1, 8);
}

int32_t ex_murmur3_bytes(const void *data, size_t n, int32_t seed)
{
	const uint8_t *p = data;
	size_t aligned = n - n % 4;
	uint32_t h1 = (uint32_t)seed;
	for (size_t i = 0; i < aligned; i += 4) {
		uint32_t w = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 | (uint32_t)p[i + 3] << 24;
		h1 = mix_h1(h1, mix_k1(w));
	}
	for (size_t i = aligned; i < n; i++) h1 = mix_h1(h1, mix_k1((uint32_t)(int32_t)(int8_t)p[i]));
	return (int32_t)fmix(h1, (uint32_t)n);
}

/* SPDX-License-Identifier: MIT */
/* What the trace's writer and reader share: the encoding's constants. */
#ifndef VMSIM_TRACE_INT_H
#define VMSIM_TRACE_INT_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_MAGIC "VMSIMTRC"
#define TRACE_MAGIC_LEN 8
#define TRACE_PAGE_SHIFT 12
/* A fault's flags below its page delta: 3 bits up to version 2, 4 since
 * version 3 (TRACE_FAULT_KERNEL). */
#define TRACE_FAULT_FLAG_BITS 4
#define TRACE_FAULT_FLAGS ((1u << TRACE_FAULT_FLAG_BITS) - 1)
static inline unsigned trace_fault_flag_bits(unsigned version)
{
	return version >= 3 ? TRACE_FAULT_FLAG_BITS : 3;
}

/* Signed as unsigned, small magnitudes small: 0, -1, 1, -2 -> 0, 1, 2, 3. */
static inline uint64_t trace_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t trace_unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* v as a LEB128 varint into p (room for 10 bytes); its length. */
static inline size_t trace_enc_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)((v & 0x7f) | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

#endif

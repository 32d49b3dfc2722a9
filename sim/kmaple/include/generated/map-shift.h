/* SPDX-License-Identifier: MIT */
/* The xarray's chunk shift (the kernel's default), for xarray.h. */
#define XA_CHUNK_SHIFT 6

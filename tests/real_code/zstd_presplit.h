/* From zstd lib/compress/zstd_preSplit.h at 1c62e714a (BSD licence): extern "C" { opened in one #if block, closed in another. */
#ifndef ZSTD_PRESPLIT_H
#define ZSTD_PRESPLIT_H

#include <stddef.h>  /* size_t */

#if defined (__cplusplus)
extern "C" {
#endif

#define ZSTD_SLIPBLOCK_WORKSPACESIZE 8208

/* note:
 * @workspace must be aligned on 8-bytes boundaries
 * @wkspSize must be at least >= ZSTD_SLIPBLOCK_WORKSPACESIZE
 * note2:
 * for the time being, this function only accepts full 128 KB blocks,
 * therefore @blockSizeMax must be == 128 KB.
 * This could be extended to smaller sizes in the future.
 */
size_t ZSTD_splitBlock_4k(const void* src, size_t srcSize, size_t blockSizeMax, void* workspace, size_t wkspSize);

#if defined (__cplusplus)
}
#endif

#endif /* ZSTD_PRESPLIT_H */

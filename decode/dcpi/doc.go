// Package dcpi decodes DIGITAL Continuous Profiling Infrastructure (DCPI)
// profile files, as described by dcpiformat(4) for format version 0.07
// (../shared/spec/dcpi-profile-0.07.txt).
//
// A profile is an ASCII header of "key value" lines ended by a line
// "samples", then, for major version 0 (pdb-0.06 and pdb-0.07), a binary
// body of chunks and an 8-byte footer, all unsigned 32-bit little-endian:
//
//	chunk  = offset number count×number
//	footer = total_offsets total_samples
//
// Alpha instructions are 4 bytes long, so count i of a chunk belongs to the
// address tstart + offset + 4·i (offset in bytes). The specification does
// not say so; the DCPI text tools print only multiples of 4 (research
// webgrind-dcpi.md §9.3). Chunks must come in increasing, non-overlapping
// address order; the footer holds the number of addresses with at least
// one sample and the sum of all counts.
//
// The binary layout of major version 1 (pdb-1.x) was never published:
// such files decode their header only, and their samples report
// decode.ErrUnsupportedVersion.
//
// # Robustness
//
// Decoding never panics on malformed input and never allocates more than
// the input holds: the header is read in bounded blocks (at most
// MaxHeader bytes) and the body is streamed through a fixed 64 KiB buffer.
// A header that breaks a rule of the grammar still decodes: every broken
// rule is listed in Header.Problems, and the body stays readable as long
// as the version and tstart lines are valid. A body that breaks a rule
// (a chunk out of order, overlapping or running past the footer) yields
// the samples before the bad chunk and then a *decode.FormatError. This
// is enforced by FuzzNewFile.
package dcpi

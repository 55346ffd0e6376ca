/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the readers of JIT-compiled code's names: the
 * jitdump parser (src/symbolize/jitdump.c) and the perf map reader
 * (src/symbolize/perf_map.c), on the same input.
 *
 * Every pointer the dump parser hands out must lie inside the input
 * (names and file names NUL-terminated there, code bytes wholly inside), a
 * load's lines sorted, its problem offset inside the file; header errors
 * are one line naming the input and an offset. Each load's code is also
 * laid out as an in-memory ELF image and decoded (instruction starts), as
 * the symbolizer hands it to the decoders. The perf map's lookups must
 * return symbols that hold the address (as perf's search holds it).
 */
#include "fuzz_common.h"
#include "decode/insn_starts.h"
#include "symbolize/jitdump.h"
#include "symbolize/perf_map.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void in_input(const void *p, size_t n, const uint8_t *data, size_t size)
{
	const uint8_t *b = p;

	if (n && (b < data || b > data + size || n > (size_t)(data + size - b)))
		abort();
	fz_bytes(p, n);
}

static void dump(const uint8_t *data, size_t size)
{
	struct hwp__jitdump *d = NULL;
	int rc = hwp__jitdump_parse(data, size, FUZZ_NAME, &d);

	if (rc < 0) {
		fz_check_error(rc);
		if (d)
			abort();
		return;
	}
	if (d->problems && d->problem_offset >= size)
		abort();
	if (d->problems && (!d->problem[0] || strchr(d->problem, '\n')))
		abort();
	if (d->n_loads + d->n_moves != d->n_codes)
		abort();
	for (size_t i = 0; i < d->n_codes; i++) {
		const struct hwp__jit_code *c = &d->codes[i];

		if (c->file_offset >= size)
			abort();
		if (c->move) {
			fz_sink += c->old_addr ^ c->code_addr ^ c->code_size;
			continue;
		}
		in_input(c->name, strlen(c->name) + 1, data, size);
		in_input(c->code, c->code_size, data, size);
		for (size_t k = 0; k < c->n_lines; k++) {
			const struct hwp__jit_line *l = &c->lines[k];

			in_input(l->file, strlen(l->file) + 1, data, size);
			if (k && c->lines[k - 1].addr > l->addr)
				abort();
			const struct hwp__jit_line *f = hwp__jitdump_line(c, l->addr);
			if (!f || f->addr != l->addr)
				abort();
		}
		if (i < 8 && c->code_size <= 4096) {
			struct hwp__code_file *f = hwp__code_file_open_mem(c->code, c->code_size, HWP_JIT_TEXT_OFFSET,
									   d->elf_mach);
			uint8_t bits[512] = { 0 };

			if (!f) {
				if (errno != ENOMEM)
					abort();
				continue;
			}
			int r = hwp__code_file_insn_starts(f, HWP_JIT_TEXT_OFFSET, c->code_size, bits);
			if (r < 0 && r != -ENOTSUP && !(r == -ERANGE && !c->code_size))
				abort();
			hwp__code_file_close(f);
		}
	}
	hwp__jitdump_delete(d);
}

static void perf_map(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct hwp__perf_map *m = NULL;

	if (!text)
		return;
	if (size)
		memcpy(text, data, size);
	if (hwp__perf_map_parse(text, size, FUZZ_NAME, &m) < 0)
		return;
	if (m->symbols + m->bad > m->lines || (m->bad && (!m->first_bad_line || m->first_bad_line > m->lines)))
		abort();
	/* what a lookup finds holds the address as perf's tree search holds it:
	   [start, end), or a zero-sized symbol's start */
	for (size_t i = 0; i < m->tab.n + size / 8 && i < 512; i++) {
		uint64_t a;

		if (i < m->tab.n) {
			a = m->tab.v[i].start + (i & 1);
		} else {
			memcpy(&a, data + 8 * (i - m->tab.n), 8);
		}
		const struct hwp_sym *s = hwp__perf_map_find(m, a);
		if (s && (s->start > a || (a >= s->end && !(a == s->start && s->end == s->start))))
			abort();
		if (s)
			fz_str(s->name);
	}
	hwp__perf_map_delete(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dump(data, size);
	perf_map(data, size);
	return 0;
}

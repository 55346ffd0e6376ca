/* SPDX-License-Identifier: MIT */
#include "output/markup.h"

void hwp__markup_escape(struct hwp_outbuf *o, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			hwp__outbuf_puts(o, "&amp;");
			break;
		case '<':
			hwp__outbuf_puts(o, "&lt;");
			break;
		case '>':
			hwp__outbuf_puts(o, "&gt;");
			break;
		case '"':
			hwp__outbuf_puts(o, "&quot;");
			break;
		case '\'':
			hwp__outbuf_puts(o, "&#39;");
			break;
		default:
			/* control characters are not allowed in XML 1.0 */
			hwp__outbuf_putc(o, (unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' ? ' ' : *s);
		}
	}
}

/* SPDX-License-Identifier: MIT */
#include "output/markup.h"

void hwp__markup_escape(struct hwp_outbuf *o, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			hwp_outbuf__puts(o, "&amp;");
			break;
		case '<':
			hwp_outbuf__puts(o, "&lt;");
			break;
		case '>':
			hwp_outbuf__puts(o, "&gt;");
			break;
		case '"':
			hwp_outbuf__puts(o, "&quot;");
			break;
		case '\'':
			hwp_outbuf__puts(o, "&#39;");
			break;
		default:
			/* control characters are not allowed in XML 1.0 */
			hwp_outbuf__putc(o, (unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' ? ' ' : *s);
		}
	}
}

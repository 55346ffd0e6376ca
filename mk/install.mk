# make install / uninstall (included by the Makefile). DESTDIR stages.
# The plugin goes to PREFIX/lib/hwprof: an installed hwprof looks for it at
# <dir of hwprof>/../lib/hwprof/hwprof-emu.so (or $HWPROF_EMU_PLUGIN).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
PLUGINDIR ?= $(PREFIX)/lib/hwprof
INSTALL ?= install

# ${prefix}-relative in hwprof.pc where possible (pkg-config --define-prefix).
pc_rel = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

# What install installs, built (debian/rules builds this, not the tests).
INSTALLED := $(HWPROF) $(EMU_SO) $(LIBA) $(BUILD)/libhwprof.so $(MAN_STAMP) $(COMPLETION)
.PHONY: installable
installable: $(INSTALLED)

install: $(INSTALLED) hwprof.pc.in
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PLUGINDIR) \
		$(DESTDIR)$(INCLUDEDIR)/hwprof $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(HWPROF) $(DESTDIR)$(BINDIR)/hwprof
	$(if $(EMU_SO),$(INSTALL) -m 755 $(EMU_SO) $(DESTDIR)$(PLUGINDIR)/hwprof-emu.so)
	$(INSTALL) -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIBSO)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libhwprof.so
	$(INSTALL) -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/libhwprof.a
	$(INSTALL) -m 644 include/hwprof/*.h $(DESTDIR)$(INCLUDEDIR)/hwprof/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(call pc_rel,$(LIBDIR))|' \
		-e 's|@INCLUDEDIR@|$(call pc_rel,$(INCLUDEDIR))|' -e 's|@VERSION@|$(VERSION)|' \
		-e 's|@LIBS_PRIVATE@|$(LIBS)|' hwprof.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/hwprof.pc
	$(INSTALL) -m 644 $(BUILD)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/hwprof

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hwprof $(DESTDIR)$(PLUGINDIR)/hwprof-emu.so \
		$(DESTDIR)$(LIBDIR)/libhwprof.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME) \
		$(DESTDIR)$(LIBDIR)/libhwprof.so $(DESTDIR)$(LIBDIR)/libhwprof.a \
		$(DESTDIR)$(PKGCONFIGDIR)/hwprof.pc $(DESTDIR)$(BASHCOMPDIR)/hwprof \
		$(DESTDIR)$(MANDIR)/man1/hwprof.1 $(DESTDIR)$(MANDIR)/man1/hwprof-*.1 \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/hwprof/,$(notdir $(wildcard include/hwprof/*.h)))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/hwprof $(DESTDIR)$(PLUGINDIR) 2>/dev/null

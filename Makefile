# multitouchd: build, install and uninstall (docs/SERVICE.md).
#
#   make build                      swift build -c release --static-swift-stdlib (no Swift runtime
#                                   needed where it is installed; about 12 MB resident instead of 21);
#                                   install puts one binary under both names
#   sudo make install               installs under PREFIX=/usr/local, creates the multitouch group
#   make install DESTDIR=/tmp/stage staged install for packaging (no group created, nothing enabled)
#   sudo make uninstall             removes what install put there (keeps an edited config file)
#   make deb                        a Debian package in dist/ (packaging/deb/build.sh: release build,
#                                   man pages, shell completions, the Python and C clients, recordings)
#   make man completions            man pages and bash/zsh/fish completions into .build/dist (install
#                                   copies them when they exist)
#
# Variables: PREFIX (/usr/local), DESTDIR (empty), UNITDIR, SYSUSERSDIR, SYSCONFDIR (/etc),
# SWIFT_BUILD_FLAGS. The units' paths are rewritten to PREFIX, so a PREFIX other than /usr/local or
# /usr also needs UNITDIR and SYSUSERSDIR set to directories systemd reads (/etc/systemd/system,
# /etc/sysusers.d).

PREFIX ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= /etc
BINDIR ?= $(PREFIX)/bin
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
DOCDIR ?= $(PREFIX)/share/doc/multitouchd
DATADIR ?= $(PREFIX)/share/multitouchd
CONFDIR ?= $(SYSCONFDIR)/multitouchd
MANDIR ?= $(PREFIX)/share/man
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(PREFIX)/share/pkgconfig
# The Python package: beside the other data by default (add it to PYTHONPATH); the Debian package
# puts it where the system python3 finds it (/usr/lib/python3/dist-packages).
PYTHONDIR ?= $(DATADIR)/python
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/DaemonCommand/MultitouchDaemon.swift)
# Generated man pages and completions (make man completions).
DIST_DIR ?= .build/dist
SWIFT ?= swift
# --static-swift-stdlib: no Swift runtime needed on the target. (How the release executables are
# linked, lld and its flags, is in Package.swift: link settings leave the compiled modules shared with
# every other release build.)
SWIFT_BUILD_FLAGS ?= --static-swift-stdlib
INSTALL ?= install

BUILD_DIR ?= $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null || echo .build/release)
DOCS := $(wildcard README.md docs/*.md)
PYTHON_PACKAGE := $(wildcard clients/python/multitouchd_client/*.py clients/python/multitouchd_client/py.typed)
PYTHON_EXAMPLES := $(wildcard clients/python/examples/*.py)
KIOSK_FILES := clients/examples/kiosk/kiosk.toml clients/examples/kiosk/kiosk.evemu \
    clients/examples/kiosk/kiosk_program.py clients/examples/kiosk/README.md
KIOSK_PROGRAMS := clients/examples/kiosk/map.py clients/examples/kiosk/pin.py clients/examples/kiosk/shell.py \
    clients/examples/kiosk/rehearse.py clients/examples/kiosk/make_recording.py
C_EXAMPLES := $(wildcard clients/c/examples/*.c)
RECORDINGS := $(wildcard checks/fixtures/*.evemu)
COMMANDS := multitouchd multitouchctl

.PHONY: all build test install uninstall check-units install-check service-check man completions deb deb-check

all: build

build:
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS)

test:
	$(SWIFT) test

# The systemd unit checks (verify + security score) and the staged install check.
check-units:
	bash checks/service/verify-units.sh

install-check:
	bash checks/service/install-check.sh

service-check:
	bash checks/service/guest-service-check.sh

# Man pages from the commands' --help, by swift-argument-parser's generate-manual tool (the tool
# behind `swift package generate-manual`, run on the built binaries: the plugin would rebuild the
# whole package in release mode without --static-swift-stdlib, over the binaries `make build` made).
# The date is the last commit's, so the pages are the same on every build of a commit.
man:
	@test -x $(BUILD_DIR)/multitouchd || { echo "make man: no release build in $(BUILD_DIR); run 'make build' first" >&2; exit 1; }
	$(SWIFT) build --product generate-manual
	rm -rf $(DIST_DIR)/man && mkdir -p $(DIST_DIR)/man
	for c in $(COMMANDS); do \
	    "$$($(SWIFT) build --show-bin-path)/generate-manual" $(BUILD_DIR)/$$c --multi-page \
	        --date "$$(git log -1 --format=%cs 2>/dev/null || date -u +%F)" --output-directory $(DIST_DIR)/man || exit 1; \
	done
	rm -f $(DIST_DIR)/man/*.help.1

completions:
	@test -x $(BUILD_DIR)/multitouchd || { echo "make completions: no release build in $(BUILD_DIR); run 'make build' first" >&2; exit 1; }
	rm -rf $(DIST_DIR)/completions && mkdir -p $(DIST_DIR)/completions/bash $(DIST_DIR)/completions/zsh $(DIST_DIR)/completions/fish
	for c in $(COMMANDS); do \
	    $(BUILD_DIR)/$$c --generate-completion-script bash > $(DIST_DIR)/completions/bash/$$c && \
	    $(BUILD_DIR)/$$c --generate-completion-script zsh > $(DIST_DIR)/completions/zsh/_$$c && \
	    $(BUILD_DIR)/$$c --generate-completion-script fish > $(DIST_DIR)/completions/fish/$$c.fish || exit 1; \
	done

deb:
	bash packaging/deb/build.sh

# Installs the package into a scratch root with dpkg and runs the installed tools (CI).
deb-check:
	bash packaging/deb/check.sh

# A unit file with its /usr/local paths rewritten to PREFIX/SYSCONFDIR.
define install_unit
	sed -e 's|/usr/local/bin/|$(BINDIR)/|g' \
	    -e 's|/usr/local/share/doc/multitouchd/|$(DOCDIR)/|g' \
	    -e 's|/etc/multitouchd/|$(CONFDIR)/|g' $(1) > $(DESTDIR)$(UNITDIR)/$(notdir $(1)).tmp
	chmod 0644 $(DESTDIR)$(UNITDIR)/$(notdir $(1)).tmp
	mv $(DESTDIR)$(UNITDIR)/$(notdir $(1)).tmp $(DESTDIR)$(UNITDIR)/$(notdir $(1))
endef

install:
	@test -x $(BUILD_DIR)/multitouchd -a -x $(BUILD_DIR)/multitouchctl || \
	    { echo "make install: no release build in $(BUILD_DIR); run 'make build' first" >&2; exit 1; }
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(CONFDIR) $(DESTDIR)$(DOCDIR)
	@# One binary, two names: multitouchctl is also the daemon when called multitouchd (its Swift
	@# runtime, FoundationEssentials and modules once instead of twice; issue 29 item 9).
	$(INSTALL) -m 0755 $(BUILD_DIR)/multitouchctl $(DESTDIR)$(BINDIR)/
	ln -sf multitouchctl $(DESTDIR)$(BINDIR)/multitouchd
	$(call install_unit,systemd/multitouchd.service)
	$(call install_unit,systemd/multitouchd.socket)
	$(call install_unit,systemd/multitouchd-tuio@.service)
	$(call install_unit,systemd/multitouchd-bridge.service)
	$(INSTALL) -m 0644 systemd/sysusers.d/multitouchd.conf $(DESTDIR)$(SYSUSERSDIR)/multitouchd.conf
	@# Never overwrite a configuration the administrator may have edited: ship the new one beside it.
	@if [ -e $(DESTDIR)$(CONFDIR)/multitouchd.toml ]; then \
	    $(INSTALL) -m 0644 config/multitouchd.toml $(DESTDIR)$(CONFDIR)/multitouchd.toml.default; \
	    echo "make install: kept existing $(DESTDIR)$(CONFDIR)/multitouchd.toml; the shipped defaults are in multitouchd.toml.default"; \
	else \
	    echo "$(INSTALL) -m 0644 config/multitouchd.toml $(DESTDIR)$(CONFDIR)/multitouchd.toml"; \
	    $(INSTALL) -m 0644 config/multitouchd.toml $(DESTDIR)$(CONFDIR)/multitouchd.toml; \
	fi
	$(if $(DOCS),$(INSTALL) -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/)
	$(INSTALL) -d $(DESTDIR)$(PYTHONDIR)/multitouchd_client $(DESTDIR)$(DATADIR)/examples/python $(DESTDIR)$(DATADIR)/examples/c
	$(INSTALL) -m 0644 $(PYTHON_PACKAGE) $(DESTDIR)$(PYTHONDIR)/multitouchd_client/
	$(INSTALL) -m 0755 $(PYTHON_EXAMPLES) $(DESTDIR)$(DATADIR)/examples/python/
	$(INSTALL) -m 0644 clients/python/README.md $(DESTDIR)$(DATADIR)/examples/python/
	$(INSTALL) -m 0644 $(C_EXAMPLES) clients/c/README.md $(DESTDIR)$(DATADIR)/examples/c/
	$(INSTALL) -d $(DESTDIR)$(DATADIR)/examples/tuio
	$(INSTALL) -m 0644 config/examples/tuio.toml checks/tuio/touches.qml systemd/examples/multitouchd-tuio-output.conf \
	    $(DESTDIR)$(DATADIR)/examples/tuio/
	@# The kiosk of docs/KIOSK.md: its configuration, programs, recording and rehearsal.
	$(INSTALL) -d $(DESTDIR)$(DATADIR)/examples/kiosk
	$(INSTALL) -m 0644 $(KIOSK_FILES) $(DESTDIR)$(DATADIR)/examples/kiosk/
	$(INSTALL) -m 0755 $(KIOSK_PROGRAMS) $(DESTDIR)$(DATADIR)/examples/kiosk/
	$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	$(INSTALL) -m 0644 clients/c/multitouchd.h $(DESTDIR)$(INCLUDEDIR)/multitouchd.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' clients/c/multitouchd.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/multitouchd.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/multitouchd.pc
	@# Sample recordings, for `multitouchctl check`, `bench`, `plot` and `multitouchd --replay`.
	$(INSTALL) -d $(DESTDIR)$(DATADIR)/recordings $(DESTDIR)$(DATADIR)/protocol
	$(INSTALL) -m 0644 $(RECORDINGS) $(DESTDIR)$(DATADIR)/recordings/
	$(INSTALL) -m 0644 protocol/multitouchd.schema.json protocol/validate.py $(DESTDIR)$(DATADIR)/protocol/
	@if [ -d $(DIST_DIR)/man ]; then \
	    echo "$(INSTALL) man pages into $(MANDIR)/man1"; \
	    $(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 && $(INSTALL) -m 0644 $(DIST_DIR)/man/*.1 $(DESTDIR)$(MANDIR)/man1/; \
	fi
	@if [ -d $(DIST_DIR)/completions ]; then \
	    echo "$(INSTALL) bash, zsh and fish completions"; \
	    $(INSTALL) -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) && \
	    $(INSTALL) -m 0644 $(DIST_DIR)/completions/bash/* $(DESTDIR)$(BASHCOMPDIR)/ && \
	    $(INSTALL) -m 0644 $(DIST_DIR)/completions/zsh/* $(DESTDIR)$(ZSHCOMPDIR)/ && \
	    $(INSTALL) -m 0644 $(DIST_DIR)/completions/fish/* $(DESTDIR)$(FISHCOMPDIR)/; \
	fi
	@# The socket group: created now on a live install, by systemd-sysusers at boot otherwise.
	@if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null 2>&1; then \
	    echo "systemd-sysusers $(SYSUSERSDIR)/multitouchd.conf"; \
	    systemd-sysusers $(SYSUSERSDIR)/multitouchd.conf; \
	elif [ -z "$(DESTDIR)" ]; then \
	    echo "make install: systemd-sysusers not found; create the socket group with: groupadd --system multitouch"; \
	else \
	    echo "make install: staged in $(DESTDIR); on the target run: systemd-sysusers $(SYSUSERSDIR)/multitouchd.conf"; \
	fi
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
	@echo "make install: done. Next: sudo systemctl enable --now multitouchd.socket multitouchd.service"
	@echo "  and add users to the multitouch group: sudo usermod -aG multitouch USER"

uninstall:
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
	    systemctl disable --now multitouchd-bridge.service 'multitouchd-tuio@*.service' 2>/dev/null || true; \
	    systemctl disable --now multitouchd.service multitouchd.socket 2>/dev/null || true; \
	fi
	rm -f $(DESTDIR)$(BINDIR)/multitouchd $(DESTDIR)$(BINDIR)/multitouchctl
	rm -f $(DESTDIR)$(UNITDIR)/multitouchd.service $(DESTDIR)$(UNITDIR)/multitouchd.socket
	rm -f $(DESTDIR)$(UNITDIR)/multitouchd-tuio@.service $(DESTDIR)$(UNITDIR)/multitouchd-bridge.service
	rm -f $(DESTDIR)$(SYSUSERSDIR)/multitouchd.conf
	rm -rf $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(PYTHONDIR)/multitouchd_client
	rm -f $(DESTDIR)$(INCLUDEDIR)/multitouchd.h $(DESTDIR)$(PKGCONFIGDIR)/multitouchd.pc
	for c in $(COMMANDS); do \
	    rm -f $(DESTDIR)$(MANDIR)/man1/$$c.1 $(DESTDIR)$(MANDIR)/man1/$$c.*.1 $(DESTDIR)$(BASHCOMPDIR)/$$c \
	        $(DESTDIR)$(ZSHCOMPDIR)/_$$c $(DESTDIR)$(FISHCOMPDIR)/$$c.fish; \
	done
	rm -f $(DESTDIR)$(CONFDIR)/multitouchd.toml.default
	@# The configuration goes only when it is still the shipped file.
	@if [ -e $(DESTDIR)$(CONFDIR)/multitouchd.toml ]; then \
	    if cmp -s config/multitouchd.toml $(DESTDIR)$(CONFDIR)/multitouchd.toml; then \
	        rm -f $(DESTDIR)$(CONFDIR)/multitouchd.toml; \
	    else \
	        echo "make uninstall: kept $(DESTDIR)$(CONFDIR)/multitouchd.toml (edited); remove it by hand"; \
	    fi; \
	fi
	-rmdir $(DESTDIR)$(CONFDIR) 2>/dev/null
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
	@echo "make uninstall: done. The multitouch group stays (files may still name it): groupdel multitouch"

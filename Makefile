# multitouchd: build, install and uninstall (docs/SERVICE.md).
#
#   make build                      swift build -c release --static-swift-stdlib (no Swift runtime
#                                   needed where it is installed; about 15 MB resident instead of 21)
#   sudo make install               installs under PREFIX=/usr/local, creates the multitouch group
#   make install DESTDIR=/tmp/stage staged install for packaging (no group created, nothing enabled)
#   sudo make uninstall             removes what install put there (keeps an edited config file)
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
SWIFT ?= swift
SWIFT_BUILD_FLAGS ?= --static-swift-stdlib
INSTALL ?= install

BUILD_DIR ?= $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null || echo .build/release)
DOCS := $(wildcard README.md docs/*.md)
PYTHON_CLIENT := $(filter-out clients/python/test_%,$(wildcard clients/python/*.py clients/python/README.md))
PYTHON_EXAMPLES := $(wildcard clients/python/examples/*.py)

.PHONY: all build test install uninstall check-units install-check service-check

all: build

build:
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS)

test:
	$(SWIFT) test

# The systemd unit checks (verify + security score) and the staged install check.
check-units:
	bash tests/service/verify-units.sh

install-check:
	bash tests/service/install-check.sh

service-check:
	bash tests/service/guest-service-check.sh

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
	$(INSTALL) -m 0755 $(BUILD_DIR)/multitouchd $(BUILD_DIR)/multitouchctl $(DESTDIR)$(BINDIR)/
	$(call install_unit,systemd/multitouchd.service)
	$(call install_unit,systemd/multitouchd.socket)
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
	$(if $(PYTHON_CLIENT),$(INSTALL) -d $(DESTDIR)$(DATADIR)/python && $(INSTALL) -m 0644 $(PYTHON_CLIENT) $(DESTDIR)$(DATADIR)/python/)
	$(if $(PYTHON_EXAMPLES),$(INSTALL) -d $(DESTDIR)$(DATADIR)/python/examples && $(INSTALL) -m 0755 $(PYTHON_EXAMPLES) $(DESTDIR)$(DATADIR)/python/examples/)
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
	    systemctl disable --now multitouchd.service multitouchd.socket 2>/dev/null || true; \
	fi
	rm -f $(DESTDIR)$(BINDIR)/multitouchd $(DESTDIR)$(BINDIR)/multitouchctl
	rm -f $(DESTDIR)$(UNITDIR)/multitouchd.service $(DESTDIR)$(UNITDIR)/multitouchd.socket
	rm -f $(DESTDIR)$(SYSUSERSDIR)/multitouchd.conf
	rm -rf $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR)
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

# SPDX-License-Identifier: Apache-2.0
# The GNOME Shell extension and its own package, gnome-shell-extension-hotspot-helper_VERSION_all.deb
# (docs/PACKAGING.md, "The GNOME Shell extension"). Included by the Makefile, which gives VERSION,
# DATADIR, DESTDIR, DEB_DIR, DEB_COMPRESS and INSTALL; `make deb` builds it beside hotspot-helper's.
#
#   make install-shell-extension   the extension and its vendor override (DESTDIR=, PREFIX=)
#   make shell-extension-deb       the package, checked by lintian unless NO_LINTIAN is set

# Two trees, one per generation of Shell's extension system, under two uuids (docs/DESKTOP.md,
# "Shell 43 and Shell 45-50"): Shell loads the one whose metadata names its version.
#   45-50: ES modules; shell45/ (extension.js, shell45.js, shell50.js) and common/ as they are.
#   43:    legacy gjs modules; shell43/ (extension.js, shell43.js) and common/ made legacy here.
# common/ (controller.js, daemon.js, labels.js, urls.js, wifiMenu.js …) is the one source both run: the 43 copy is
# generated from it by the sed below, which knows the few forms common/ uses (imports from gi://
# and from ./file.js, `export function|class|const`) and fails on any other import or export.
SHELL_EXTENSION_UUID = hotspot-helper@hotspot-helper-linux
SHELL_EXTENSION_UUID_43 = hotspot-helper-shell43@hotspot-helper-linux
SHELL_EXTENSION_SRC = packaging/gnome-shell-extension
SHELL_EXTENSION_COMMON = controller.js daemon.js labels.js portalPrompts.js signInDialog.js signInForm.js urls.js wifiMenu.js
SHELL_EXTENSION_FILES = metadata.json extension.js shell45.js shell50.js
SHELL_EXTENSION_FILES_43 = metadata.json extension.js shell43.js
SHELL_EXTENSION_DIR = $(DESTDIR)$(DATADIR)/gnome-shell/extensions
SHELL_EXTENSION_TO_LEGACY = sed -e "1a 'use strict';" \
  -e "s|^import \([A-Za-z0-9_]*\) from 'gi://\([A-Za-z0-9_]*\)';\$$|const \1 = imports.gi.\2;|" \
  -e "s|^import {\([A-Za-z0-9_, ]*\)} from '\./\([A-Za-z0-9_]*\)\.js';\$$|const {\1} = imports.misc.extensionUtils.getCurrentExtension().imports.\2;|" \
  -e 's|^export class \([A-Za-z0-9_]*\) |var \1 = class \1 |' -e 's|^export function |function |' -e 's|^export const |var |'
# Sorts after Debian's own overrides (00_, 10_): see PACKAGING.md for what that means when another
# override sets enabled-extensions too.
SHELL_EXTENSION_OVERRIDE = 50_hotspot-helper.gschema.override
SHELL_EXTENSION_PACKAGE = gnome-shell-extension-hotspot-helper
SHELL_EXTENSION_ROOT = $(DEB_DIR)/$(SHELL_EXTENSION_PACKAGE)-root
SHELL_EXTENSION_DEB = $(DEB_DIR)/$(SHELL_EXTENSION_PACKAGE)_$(VERSION)_all.deb
SHELL_EXTENSION_DOCDIR = $(DATADIR)/doc/$(SHELL_EXTENSION_PACKAGE)

.PHONY: install-shell-extension uninstall-shell-extension shell-extension-deb

install-shell-extension:
	$(INSTALL) -d -m 0755 $(SHELL_EXTENSION_DIR)/$(SHELL_EXTENSION_UUID) $(SHELL_EXTENSION_DIR)/$(SHELL_EXTENSION_UUID_43)
	for f in $(SHELL_EXTENSION_FILES); do $(INSTALL) -m 0644 $(SHELL_EXTENSION_SRC)/shell45/$$f $(SHELL_EXTENSION_DIR)/$(SHELL_EXTENSION_UUID)/$$f || exit 1; done
	for f in $(SHELL_EXTENSION_FILES_43); do $(INSTALL) -m 0644 $(SHELL_EXTENSION_SRC)/shell43/$$f $(SHELL_EXTENSION_DIR)/$(SHELL_EXTENSION_UUID_43)/$$f || exit 1; done
	for f in $(SHELL_EXTENSION_COMMON); do \
	  $(INSTALL) -m 0644 $(SHELL_EXTENSION_SRC)/common/$$f $(SHELL_EXTENSION_DIR)/$(SHELL_EXTENSION_UUID)/$$f || exit 1; \
	  $(SHELL_EXTENSION_TO_LEGACY) $(SHELL_EXTENSION_SRC)/common/$$f > $(SHELL_EXTENSION_DIR)/$(SHELL_EXTENSION_UUID_43)/$$f || exit 1; \
	  chmod 0644 $(SHELL_EXTENSION_DIR)/$(SHELL_EXTENSION_UUID_43)/$$f; \
	  if grep -nE '^(import|export) ' $(SHELL_EXTENSION_DIR)/$(SHELL_EXTENSION_UUID_43)/$$f; then \
	    echo "extension.mk: common/$$f has an import or export the Shell 43 conversion does not know" >&2; exit 1; fi; \
	done
	$(INSTALL) -D -m 0644 $(SHELL_EXTENSION_SRC)/$(SHELL_EXTENSION_OVERRIDE) $(DESTDIR)$(DATADIR)/glib-2.0/schemas/$(SHELL_EXTENSION_OVERRIDE)
	@# Installed by hand, the override counts once the schemas are compiled again (a package
	@# needs nothing: libglib2.0-0's trigger on /usr/share/glib-2.0/schemas does it).
	@if [ -z "$(DESTDIR)" ] && command -v glib-compile-schemas >/dev/null; then glib-compile-schemas $(DATADIR)/glib-2.0/schemas; fi

uninstall-shell-extension:
	rm -rf $(SHELL_EXTENSION_DIR)/$(SHELL_EXTENSION_UUID) $(SHELL_EXTENSION_DIR)/$(SHELL_EXTENSION_UUID_43)
	rm -f $(DESTDIR)$(DATADIR)/glib-2.0/schemas/$(SHELL_EXTENSION_OVERRIDE)
	@if [ -z "$(DESTDIR)" ] && command -v glib-compile-schemas >/dev/null; then glib-compile-schemas $(DATADIR)/glib-2.0/schemas; fi

# Staged as hotspot-helper's is (scripts/build-deb.sh): files, then DEBIAN/ and dpkg-deb. Both
# packages come from this tree, so it shares hotspot-helper's changelog (Source: hotspot-helper).
shell-extension-deb:
	@rm -rf $(SHELL_EXTENSION_ROOT)
	@$(MAKE) --no-print-directory install-shell-extension DESTDIR=$(abspath $(SHELL_EXTENSION_ROOT)) DATADIR=/usr/share >/dev/null
	@$(INSTALL) -D -m 0644 $(SHELL_EXTENSION_SRC)/debian/copyright $(SHELL_EXTENSION_ROOT)/usr/share/doc/$(SHELL_EXTENSION_PACKAGE)/copyright
	@gzip -9 -n -c packaging/debian/changelog > $(SHELL_EXTENSION_ROOT)/usr/share/doc/$(SHELL_EXTENSION_PACKAGE)/changelog.gz
	@chmod 0644 $(SHELL_EXTENSION_ROOT)/usr/share/doc/$(SHELL_EXTENSION_PACKAGE)/changelog.gz
	@$(INSTALL) -d -m 0755 $(SHELL_EXTENSION_ROOT)/DEBIAN
	@sed -e 's/@VERSION@/$(VERSION)/g' -e "s/@SIZE@/$$(du -sk --exclude=DEBIAN $(SHELL_EXTENSION_ROOT) | cut -f1)/" \
	  $(SHELL_EXTENSION_SRC)/debian/control.in > $(SHELL_EXTENSION_ROOT)/DEBIAN/control
	@(cd $(SHELL_EXTENSION_ROOT) && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | sort | xargs -d '\n' md5sum) > $(SHELL_EXTENSION_ROOT)/DEBIAN/md5sums
	@chmod 0644 $(SHELL_EXTENSION_ROOT)/DEBIAN/control $(SHELL_EXTENSION_ROOT)/DEBIAN/md5sums
	@dpkg-deb --root-owner-group -Z$(DEB_COMPRESS) --build $(SHELL_EXTENSION_ROOT) $(SHELL_EXTENSION_DEB) >/dev/null
	@echo $(SHELL_EXTENSION_DEB)
	@if command -v lintian >/dev/null && [ -z "$(NO_LINTIAN)" ]; then lintian --info --display-info $(SHELL_EXTENSION_DEB) || true; fi

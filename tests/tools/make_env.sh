# SPDX-License-Identifier: MIT
# Sourced by tests that run make on this checkout. hwp_make runs make with the
# same build as the suite's (BUILD, SAN, the variables given to `make test`),
# without the outer make's jobserver, so it rebuilds nothing by accident.
hwp_make() {
	local vars=()
	case " ${MAKEFLAGS:-} " in
	*" -- "*) read -ra vars <<<"${MAKEFLAGS#* -- }" ;;
	esac
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory BUILD="${BUILD:-build}" \
		${SAN:+SAN=$SAN} "${vars[@]}" "$@"
}

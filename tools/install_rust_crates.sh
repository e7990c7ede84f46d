#!/usr/bin/env bash
# The Rust crates the Rust backend's tests build with (runtime/rust/: pyo3 for the Python
# binding, fancy-regex for header rules) come from Debian's librust-*-dev packages, served
# to cargo by runtime/rust/.cargo/config.toml: crates.io is not reachable here.  Installs
# them (apt-get update once, then the packages) where cargo is and they are missing; a
# machine without cargo gets nothing, and the Rust tests skip there.
set -euo pipefail
PACKAGES=(librust-pyo3-dev librust-fancy-regex-dev)
if ! command -v cargo >/dev/null 2>&1; then
    echo "install_rust_crates: no cargo here: the Rust tests will be skipped"
    exit 0
fi
if dpkg -s "${PACKAGES[@]}" >/dev/null 2>&1; then
    exit 0
fi
echo "install_rust_crates: apt-get install ${PACKAGES[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${PACKAGES[@]}" >/dev/null

#!/usr/bin/env bash
# Installs the Debian packages given as arguments that are not installed yet; does nothing when all are.
# Needs root or passwordless sudo. Usage: apt-install.sh "what they are for" package...
set -euo pipefail
purpose=$1
shift
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
echo ">> installing ${purpose} from Debian: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null || true
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

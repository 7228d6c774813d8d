#!/bin/sh
# Regenerates ../vectors.json.gz from gitleaks' own rule tests (the true and false
# positives every rule in cmd/generate/config/rules validates).
# Usage, from this directory:  ./gen.sh [version]   (default v8.30.1)
# Needs the Go module proxy once (go mod download of gitleaks and its
# dependencies into $WORK/mod); the gateway's module never depends on gitleaks.
set -eu
V=${1:-v8.30.1}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/gitleaksvectors}
mkdir -p "$WORK"
export GOMODCACHE="$WORK/mod" GOFLAGS=-mod=mod GOWORK=off
(cd "$WORK" && go mod download -json "github.com/zricethezav/gitleaks/v8@$V" >/dev/null)
SRC="$GOMODCACHE/github.com/zricethezav/gitleaks/v8@$V"
rm -rf "$WORK/gitleaks"
cp -r "$SRC" "$WORK/gitleaks"
chmod -R u+w "$WORK/gitleaks"
cd "$WORK/gitleaks"
cp "$HERE/validate.go" cmd/generate/config/utils/validate.go
cp "$HERE/regen.go" cmd/generate/secrets/regen.go
# validate.go wraps the sample renderers to remember each text's syntax.
sed -i -e 's/^func GenerateSampleSecrets(/func generateSampleSecrets(/' -e 's/^func GenerateSampleSecret(/func generateSampleSecret(/' cmd/generate/config/utils/generate.go
mkdir -p cmd/gitleaksvectors
# The rule list of gitleaks' default config, as its generator builds it.
sed -n '/configRules := \[\]\*config.Rule{/,/^\t}/p' cmd/generate/config/main.go | sed '1d;$d' > "$WORK/rules.txt"
sed -e "/\/\/RULES\/\//r $WORK/rules.txt" -e '/\/\/RULES\/\//d' "$HERE/main.go.in" > cmd/gitleaksvectors/main.go
go run -tags gitleaksvectors ./cmd/gitleaksvectors "$HERE/../vectors.json" "github.com/zricethezav/gitleaks/v8@$V cmd/generate/config/rules"
cp LICENSE "$HERE/../LICENSE.gitleaks"
# Gzipped (-n: no name or time, so the same input gives the same bytes):
# the repository's text then holds no key-shaped string for secret scanners.
gzip -9 -n -f "$HERE/../vectors.json"
echo "wrote $HERE/../vectors.json.gz"

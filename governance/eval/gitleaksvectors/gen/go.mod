// A module of its own so that the gateway's module never builds or vets the
// generator: its files are copied into a patched copy of gitleaks by gen.sh.
module github.com/governance-gateway/gateway/governance/eval/gitleaksvectors/gen

go 1.24

// Package archtest holds the test that enforces Mirage's package layers:
// a package imports only from lower layers (STYLE.md section 1).
package archtest

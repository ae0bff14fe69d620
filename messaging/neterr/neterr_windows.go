//go:build windows

package neterr

var current = windowsCodes

package main
import "errors"
var errNotYet = errors.New("not built yet")

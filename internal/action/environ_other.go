//go:build !linux

package action

// hideEnvironment does nothing outside Linux, where the Action's container
// runs; see the Linux version.
func hideEnvironment() error { return nil }

// dumpable reports true outside Linux: there is no such flag to clear.
func dumpable() (bool, error) { return true, nil }

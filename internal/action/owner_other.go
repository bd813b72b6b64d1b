//go:build !linux

package action

// ownership is Linux-only: the Action's container is Linux, and elsewhere
// warden never runs as root over a runner's workspace.
type ownership struct{}

// watchOwnership has nothing to do off Linux.
func watchOwnership(string) (*ownership, error) { return nil, nil }

// restore has nothing to do off Linux.
func (*ownership) restore() (int, error) { return 0, nil }

// watchOwnership has nothing to do off Linux.
func (*runner) watchOwnership() (restore func()) { return func() {} }

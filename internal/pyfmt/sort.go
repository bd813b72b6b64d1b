package pyfmt

import (
	"sort"

	"github.com/wardenlock/warden/internal/jsonv"
)

func sortMembers(ms []jsonv.Member) {
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Key < ms[j].Key })
}

// Package evidence is Herdbook's birth-history evidence engine.
//
// The engine reviews the birth_history facts that a farm has recorded in
// record item metadata (profiles, castrations, exposures, group memberships,
// purchases, movements and births) against the farm's BirthHistorySettings,
// and answers what the records say about one birth: whether it fell in a
// planned birth window, when the dam must have conceived, which sires ran
// with her then, and how far each of them can be trusted as the sire.
//
// Everything here is a pure function over values. The package performs no
// I/O, keeps no state and writes nothing: the caller loads the farm's active
// facts, passes them in, and stores or serves the answer. Results depend only
// on the input, never on the order of the facts or on the clock, so the same
// question always gets the same answer.
//
// The rules are described for farmers and integrators in
// docs/birth-history.md; the comments here say why the code is shaped the
// way it is.
package evidence

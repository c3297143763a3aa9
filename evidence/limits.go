package evidence

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits from SPEC.md. Lengths count characters (Unicode code points), as
// JSON Schema's maxLength does, not bytes.
const (
	// SettingsVersion is the only BirthHistorySettings version understood.
	SettingsVersion = 1
	// EvidenceVersion is the version stamped on every review result.
	EvidenceVersion = 1

	// MinGestationDays and MaxGestationDays bound gestation_days.min and max.
	MinGestationDays = 1
	MaxGestationDays = 2000
	// MinSireAgeDays and MaxSireAgeDays bound minimum_sire_age_days.
	MinSireAgeDays = 1
	MaxSireAgeDays = 10000
	// MaxBirthWindows is the most birth windows a farm may configure.
	MaxBirthWindows = 40
	// MaxBreedGestations is the most breeds gestation_days_by_breed may name.
	MaxBreedGestations = 40
	// MaxWindowLabel is the longest birth window label.
	MaxWindowLabel = 80

	// MaxCandidates caps sire.candidates.
	MaxCandidates = 128
	// MaxMovementComparisons caps movement_comparisons.
	MaxMovementComparisons = 128
	// MaxIDs caps each record id and record item id list of a candidate.
	MaxIDs = 128
	// MaxOverlapIntervals caps a candidate's overlap_intervals.
	MaxOverlapIntervals = 128
	// MaxReasons caps a candidate's reasons.
	MaxReasons = 16
	// MaxReasonLength caps each reason.
	MaxReasonLength = 1000
	// MaxUnresolved caps the unresolved list.
	MaxUnresolved = 64
	// MaxUnresolvedLength caps each unresolved line.
	MaxUnresolvedLength = 1000
	// MaxProvenance caps sire.provenance.
	MaxProvenance = 1000
	// MaxPresumedCross caps sire.presumed_cross.
	MaxPresumedCross = 220
	// MaxBreed caps a breed, both in a profile fact and in a candidate.
	MaxBreed = 100
	// MaxOffspringIDs caps offspring_ids in a birth fact, matching the
	// other id lists of the engine.
	MaxOffspringIDs = 128
	// MaxFactText caps the free text of a fact: a death's cause, a sale's
	// buyer, a laboratory's name.
	MaxFactText = 200
	// MaxIdentifier caps a visual tag, brand or tattoo.
	MaxIdentifier = 64
	// MaxWeightKG is the heaviest weight a weight fact may record. It is a
	// bound against typing errors, not a biological claim.
	MaxWeightKG = 100000
)

// FieldError names one invalid field and says what is wrong with it, in a
// sentence fit for a validation envelope. Field uses JSON names and paths,
// such as "birth_windows[3].end_date" or "birth_history.start_date".
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error lets a FieldError travel as an error value.
func (e FieldError) Error() string { return e.Field + ": " + e.Message }

// truncate shortens s to at most n characters, cutting on a rune boundary
// and marking the cut with an ellipsis so a reader knows text is missing.
func truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n-1 {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// isUUID accepts the canonical 8-4-4-4-12 hexadecimal form in either case.
// Braced, URN and unhyphenated spellings are refused so that one animal
// never hides behind two spellings. Every fact carries several ids, so the
// check is a table lookup per byte.
func isUUID(s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i != 8 && i != 13 && i != 18 && i != 23 && !hexDigit[s[i]] {
			return false
		}
	}
	return true
}

var hexDigit = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEF" {
		t[c] = true
	}
	return t
}()

// normID lower-cases an identifier so that ids compare equal whatever case
// the client wrote them in.
func normID(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// quoteShort quotes a caller-supplied value for a message, shortened so a
// hostile value cannot swamp the text.
func quoteShort(s string) string {
	return strconv.Quote(truncate(s, 40))
}

package pii

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// generalCase: text and what Scan reports at confidence >= 0.5 (nothing
// when want is empty).
type generalCase struct {
	name string
	text string
	want map[string][]string
}

func checkGeneral(t *testing.T, tests []generalCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := found(t, tt.text)
			require.Equal(t, len(tt.want), len(got), "%v", got)
			for k, v := range tt.want {
				require.Equal(t, v, got[k])
			}
		})
	}
}

// TestIBANLetterRuns: an IBAN whose account part ends in letters (Brazil's
// account type and owner) or holds a long run of them (Malta, Ukraine) is
// read to its end, wherever the digits stop.
func TestIBANLetterRuns(t *testing.T) {
	checkGeneral(t, []generalCase{
		{"brazil compact", "IBAN BR6300360305000010009795493PZ ok", map[string][]string{IBAN: {"BR6300360305000010009795493PZ"}}},
		{"brazil grouped", "to BR63 0036 0305 0000 1000 9795 493P Z.", map[string][]string{IBAN: {"BR63 0036 0305 0000 1000 9795 493P Z"}}},
		{"ukraine letters", "UA09322313TJWTQFXRRQZNIYMLDIL", map[string][]string{IBAN: {"UA09322313TJWTQFXRRQZNIYMLDIL"}}},
		{"malta", "pay MT84MALT011000012345MTLCAST001S now", map[string][]string{IBAN: {"MT84MALT011000012345MTLCAST001S"}}},
		{"near miss: last letter changed", "IBAN BR6300360305000010009795493PY ok", map[string][]string{}},
		{"near miss: ukraine checksum", "UA19322313TJWTQFXRRQZNIYMLDIL", map[string][]string{}},
	})
}

// TestIPv6HexEdges: an address beginning or ending with hex letters, or
// with a long run of them inside, is read whole.
func TestIPv6HexEdges(t *testing.T) {
	checkGeneral(t, []generalCase{
		{"ends in letters", "IP address: 1ef6:5bc3:6d4f:24a:1e2b:e04a:7f1:4cba", map[string][]string{IPAddress: {"1ef6:5bc3:6d4f:24a:1e2b:e04a:7f1:4cba"}}},
		{"starts with letters", "faef:dc2c:9f03:4a09:d7e:6ad:f005:47a8,GET", map[string][]string{IPAddress: {"faef:dc2c:9f03:4a09:d7e:6ad:f005:47a8"}}},
		{"letter run inside", "see ba7:d40b:c457:7e90:bedf:a52e:8db0:3502 now", map[string][]string{IPAddress: {"ba7:d40b:c457:7e90:bedf:a52e:8db0:3502"}}},
		{"near miss: nine groups", "see abcd:ef01:2345:6789:abcd:ef01:2345:6789:abcd now", map[string][]string{}},
		{"near miss: mac address", "mac 00:1a:2b:3c:4d:5e joined", map[string][]string{}},
	})
}

// TestWeakDoesNotHide: a candidate its context leaves below the default
// threshold does not hide an overlapping one above it (bare nine digits are
// an SSN only with context; after a country code or "call" they are a phone).
func TestWeakDoesNotHide(t *testing.T) {
	checkGeneral(t, []generalCase{
		{"country code", "call +34 746628169 if the door is locked", map[string][]string{Phone: {"+34 746628169"}}},
		{"trunk zero", "hey, +49(0) 671119289 is my new number", map[string][]string{Phone: {"+49(0) 671119289"}}},
		{"phone context", "you can reach me on 041288997 after 6pm", map[string][]string{Phone: {"041288997"}}},
		{"near miss: ssn context keeps the ssn", "SSN 746628169", map[string][]string{USSSN: {"746628169"}}},
		{"near miss: no context, neither", "Omar 032172665.", map[string][]string{}},
	})
}

// TestNumberLookalikes: numbers that are not phones or cards: Unix
// timestamps, a date followed by its time, a decimal comma, the digit groups
// of an IBAN that failed its checksum, an order number a few words on.
func TestNumberLookalikes(t *testing.T) {
	checkGeneral(t, []generalCase{
		{"epoch seconds", "ts=1502123501 level=info", map[string][]string{}},
		{"epoch millis passing luhn", "created_at: 1513994695493", map[string][]string{}},
		{"near miss: ten digits of a phone", "2125550143", map[string][]string{Phone: {"2125550143"}}},
		{"near miss: card context", "card 1513994695493 declined", map[string][]string{CreditCard: {"1513994695493"}}},
		{"near miss: visa 13 digits", "4222222222222", map[string][]string{CreditCard: {"4222222222222"}}},
		{"date then time", "timestamp 05.12.1999 11:54:48", map[string][]string{}},
		{"date then time, hyphens", "at 10-08-1996 19:21:44 UTC", map[string][]string{}},
		{"near miss: dotted phone", "mobile 05.12.19.99.11", map[string][]string{Phone: {"05.12.19.99.11"}}},
		{"decimal comma", "Preis: 2.498.775,36 €", map[string][]string{}},
		{"near miss: comma after phone", "call 030 498 7751, then", map[string][]string{Phone: {"030 498 7751"}}},
		{"failed iban", "invalid IBAN GB18 AIMM 2417 6212 4857 40", map[string][]string{}},
		{"near miss: letters before phone", "phone ABCD 0207 946 0958", map[string][]string{Phone: {"0207 946 0958"}}},
		{"order number is", "your order number is 5363369369, keep it", map[string][]string{}},
		{"near miss: my number is", "my number is 5363369369, keep it", map[string][]string{Phone: {"5363369369"}}},
	})
}

// TestTrunkPrefixPairs: two groups of 10-11 digits starting with the
// national trunk prefix 0 are a phone layout (UK "07616 83178"); without the
// 0 they are as often a street number and a postcode.
func TestTrunkPrefixPairs(t *testing.T) {
	checkGeneral(t, []generalCase{
		{"uk mobile", "Dorothy lives in Leeds; 07616 83178.", map[string][]string{Phone: {"07616 83178"}}},
		{"uk landline", "01632 960391", map[string][]string{Phone: {"01632 960391"}}},
		{"near miss: no trunk zero", "lives at 17031 22021 Elm", map[string][]string{}},
		{"near miss: nine digits", "lives at 07616 8317 Elm", map[string][]string{}},
	})
}

// TestAssetNamesAreNoEmail: "logo@2x.png" names an image at a pixel
// density, not an address: a domain ending in a file extension is not one.
func TestAssetNamesAreNoEmail(t *testing.T) {
	checkGeneral(t, []generalCase{
		{"retina png", "logo@2x.png and icon@3x.png are missing", map[string][]string{}},
		{"svg", "use arrow@1.5x.svg", map[string][]string{}},
		{"near miss: real tld", "mail x2@studio.com", map[string][]string{Email: {"x2@studio.com"}}},
		{"near miss: zip is a tld", "mail bob@files.zip", map[string][]string{Email: {"bob@files.zip"}}},
	})
}

// TestIBANRegistryCountries: the countries the IBAN registry added in its
// recent releases are known with their lengths; a checksum-valid string of
// a country without IBANs is not one.
func TestIBANRegistryCountries(t *testing.T) {
	checkGeneral(t, []generalCase{
		{"russia", "IBAN RU02 0445 2560 0407 0281 0412 3456 7890 1", map[string][]string{IBAN: {"RU02 0445 2560 0407 0281 0412 3456 7890 1"}}},
		{"oman", "to OM810180000001299123456 today", map[string][]string{IBAN: {"OM810180000001299123456"}}},
		{"yemen", "YE15CBYE0001018861234567891234", map[string][]string{IBAN: {"YE15CBYE0001018861234567891234"}}},
		{"sudan", "IBAN: SD21 2901 0501 2340 01", map[string][]string{IBAN: {"SD21 2901 0501 2340 01"}}},
		{"near miss: russia checksum", "IBAN RU03 0445 2560 0407 0281 0412 3456 7890 1", map[string][]string{}},
		{"near miss: argentina has no iban", "IBAN AR260110123456789012345678", map[string][]string{}},
	})
}

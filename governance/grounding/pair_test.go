package grounding

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Two numbers stated side by side in the source are stated, whatever
// words a neighbouring figure shares with the answer's; an edit of one of
// them, or the two traded, is still a mismatch.
func TestPairStated(t *testing.T) {
	src := "Janet Cole, CFO: Operating revenue was $1.64 billion, up 8%, mainly because of new rates. " +
		"Net income was $318 million, and earnings per share were $2.91, compared with $2.77 in 2022, an increase of 5%. " +
		"Weather reduced EPS by about $0.06, as a cool, wet summer lowered water use. " +
		"Our board raised the quarterly dividend by 7% to $0.46 per share."
	tests := []struct {
		name, answer, mismatch string
	}{
		{"pair stated", "Operating revenue was $1.64 billion, up 8%, and earnings per share were $2.91, compared with $2.77, as a cool, wet summer lowered water use.", None},
		{"one of the pair changed", "Operating revenue was $1.64 billion, up 8%, and earnings per share were $2.91, compared with $2.57, as a cool, wet summer lowered water use.", Numeric},
		{"value of another figure", "The quarterly dividend rises 7% to $0.06 per share.", Numeric},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, src)
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r)
		})
	}
}

func TestIdiomUse(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Fleets like yours cut fuel.", true},
		{"Drivers like the app.", true}, // "like the": read as a preposition, as most are
		{"Drivers like tracking.", false},
		{"It happened last month.", true},
		{"The last step is testing.", false},
		{"Keep it close to the minimum.", true},
		{"We close the office at six.", false},
		{"Shipments were delayed ahead of the holidays.", true},
		{"The road ahead is long.", false},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			found := false
			for _, w := range []string{"like", "last", "close", "ahead"} {
				if i := indexWord(tt.text, w); i >= 0 {
					found = true
					require.Equal(t, tt.want, idiomUse(tt.text, i+len(w), tt.text[i:i+len(w)]))
				}
			}
			require.True(t, found)
		})
	}
}

// In a Check: the source's "ahead of" is no opposite of the answer's
// "back".
func TestIdiomNoOpposite(t *testing.T) {
	c := New()
	// heldout2_news_1 of governance/eval/summedits_other (development).
	src := "Dockworkers at Port Callow end nine-day strike after pay deal\n\nPORT CALLOW - About 1,400 dockworkers at Port Callow returned to work on Thursday after their union accepted a new three-year contract, ending a nine-day strike that left dozens of container ships waiting offshore.\n\nMembers of the Harbour and Freight Workers Union voted 78 percent in favour of the deal, which raises hourly wages by 14 percent over three years and limits the use of automated cranes at two of the port's four terminals until 2027. The union had asked for 20 percent and a complete ban on new automation.\n\n\"Nobody got everything they wanted, but our members kept their jobs and got a fair raise,\" union president Delia Marsh told reporters outside the union hall.\n\nThe Port Callow Authority, which negotiated on behalf of the terminal operators, said the backlog of 37 ships would take about two weeks to clear. Retailers had warned that the strike was delaying shipments of furniture and electronics ahead of the holiday season.\n\nPort director Samuel Okoye said the authority would hire 120 additional workers on temporary contracts to speed up unloading. He declined to say how much the strike had cost, but a study by the regional chamber of commerce estimated losses at $45 million a day across the local economy."
	r := c.Check("About 1,400 Port Callow dockworkers went back to work after their union approved a three-year contract with a 14 percent raise and limits on automated cranes at two terminals until 2027, ending a nine-day strike. The port authority expects to clear the backlog of 37 ships in about two weeks and will hire 120 temporary workers.", src)
	require.Equal(t, None, r.Mismatch, "%+v", r)
}

func indexWord(s, w string) int {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] == w && (i == 0 || !asciiLetter(s[i-1])) && (i+len(w) == len(s) || !asciiLetter(s[i+len(w)])) {
			return i
		}
	}
	return -1
}

// A number of three significant digits the source states is stated,
// whatever words a neighbouring figure shares with it ("Gross margin
// improved to 64.5%" against "raising our full-year revenue growth
// guidance to 10% to 11%, from 8% to 10%"); heldout2_ectsum_2 of
// governance/eval/summedits_other (development).
func TestDistinctiveStated(t *testing.T) {
	src := "Operator: Welcome to the Corvel Medical Systems second quarter 2024 earnings conference call. Please go ahead, Ms. Hwang.\nDiane Hwang, CEO: Thank you. Corvel delivered revenue of $612 million in the second quarter, an increase of 12% on a reported basis and 14% in constant currency. Our surgical robotics segment led the way, with revenue up 27% to $188 million, and we installed 41 new systems, compared with 30 a year ago. Procedure volumes on our installed base grew 22%. Our diagnostic imaging segment was weaker, with revenue down 3% to $205 million, as hospitals in China delayed purchases.\nDiane Hwang, CEO: We also received FDA clearance for our single-port robotic system in May, and we expect first US shipments in the fourth quarter.\nPaul Mendez, CFO: Thank you, Diane. Gross margin was 64.5%, up 120 basis points, driven by a richer mix of robotics and disposable instruments. Operating expenses grew 9%, including a 15% increase in R&D. Adjusted earnings per share were $1.34, up from $1.11. Free cash flow was $96 million. Given the strength in robotics, we are raising our full-year revenue growth guidance to 10% to 11%, from 8% to 10%, and our adjusted EPS guidance to $5.20 to $5.35.\nOperator: The first question comes from Amara Lewis at Stroud & Co.\nAmara Lewis: What's the outlook for imaging in China?\nDiane Hwang, CEO: We don't expect a recovery before next year."
	c := New()
	r := c.Check("Corvel Medical Systems reported second quarter revenue of $612 million, up 12%, led by a 27% rise in surgical robotics revenue and 41 system installations, while diagnostic imaging revenue fell 3% on delayed purchases in China. Gross margin improved to 64.5% and adjusted EPS rose to $1.34. The company raised its full-year revenue growth guidance to 10% to 11%.", src)
	require.Equal(t, None, r.Mismatch, "%+v", r)
	require.True(t, distinctive("64.5%", &quantity{kind: '%'}))
	require.True(t, distinctive("$742 million", &quantity{kind: '$'}))
	require.False(t, distinctive("$0.46", &quantity{kind: '$'}))
	require.False(t, distinctive("2,300", &quantity{kind: 'n'}))
	require.False(t, distinctive("2024", &quantity{kind: 'y'}))
}

// In prose a negation the source states in another sentence, right after
// its own negation, is no contradiction ("no reports of injuries" against
// "No injuries have been reported." two sentences after the complaints);
// one that negates words the source negates nowhere still is.
func TestNegationElsewhere(t *testing.T) {
	c := New()
	// heldout2_news_4 of governance/eval/summedits_other (development).
	r := c.Check("Greenhill Foods is voluntarily recalling about 48,000 containers of Little Sprout sweet potato and spinach puffs sold in 14 states because some pieces are too hard and could choke young children. It has received 11 complaints but no reports of injuries. A drying oven that ran too hot caused the problem; the teething wafers and fruit melts are not affected.", "Maker of Little Sprout baby snacks recalls puffs over choking concerns\n\nGreenhill Foods is recalling about 48,000 containers of its Little Sprout veggie puffs because some puffs may be harder than intended and could pose a choking hazard to young children, the company and the Food and Drug Administration announced Friday.\n\nThe recall covers the 1.5-ounce sweet potato and spinach flavours with best-by dates between March 1 and April 15 of next year. The products were sold at grocery stores and online in 14 states.\n\nThe company said it had received 11 complaints from parents who found unusually hard pieces, including two reports of a child gagging. No injuries have been reported. A Greenhill spokesperson said the problem was traced to a drying oven at its plant in Marlow that ran hotter than its setting for several days in September.\n\nParents should not feed the recalled puffs to children and can return them to the store for a full refund or contact the company for a replacement coupon. Other Little Sprout products, including its teething wafers and fruit melts, are not affected.\n\nThe FDA classified the recall as voluntary. Greenhill said it has replaced the oven's temperature sensors and added a hardness test for every batch.")
	require.Equal(t, None, r.Mismatch, "%+v", r)
	src := "EcoGenius offers Smart Building Solutions that help reduce energy consumption. " +
		"Try our 30-Day Risk-Free Trial at no cost to your company."
	for _, ans := range []string{
		"EcoGenius is not a company that offers Smart Building Solutions that help reduce energy consumption.",
		"EcoGenius offers Smart Building Solutions that do not reduce energy consumption.",
	} {
		r := c.Check(ans, src)
		require.Equal(t, Contradiction, r.Mismatch, "%s: %+v", ans, r)
	}
}

// A single-letter name's possessive is the name ("Grad B's detector" for
// "Grad B: My detector"), which the tokenizer drops as it drops "B".
func TestSingleLetterPossessive(t *testing.T) {
	src := "Grad A: The overlap detector works. Grad B: My detector catches about 70 percent of overlaps but has many false alarms."
	c := New()
	for _, ans := range []string{
		"Grad B's detector catches about 70 percent of overlaps but has many false alarms.",
		"Grad A's overlap detector works.",
	} {
		r := c.Check(ans, src)
		require.Equal(t, None, r.Mismatch, "%s: %+v", ans, r)
	}
	require.Equal(t, Unsupported, c.Check("Grad B's detector catches about 70 percent of overlaps but has many false alarms, Frank says.", src).Mismatch)
}

// A count of one unit of time that measures the source's span in another
// ("around ten years" for "a decade") is no changed period.
func TestSameSpan(t *testing.T) {
	tests := []struct {
		answer, source string
		want           bool
	}{
		{"paid off in around ten years", "paid off in about a decade", true},
		{"over 12 months", "over one year", true},
		{"within 100 years", "for the first time in a century", true},
		{"in three years", "in about a decade", false},
		{"for months", "for a decade", false},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			a := strings.LastIndexByte(tt.answer, ' ') + 1
			s := strings.LastIndexByte(tt.source, ' ') + 1
			var buf [16]byte
			u := timeUnitOf(lowerASCII(tt.answer, a, len(tt.answer), buf[:]))
			require.GreaterOrEqual(t, u, 0)
			require.Equal(t, tt.want, sameSpan(tt.answer, a, u, tt.source, &tok{start: s, end: len(tt.source)}))
		})
	}
	// heldout_podcast_3 of governance/eval/summedits_other (development).
	r := New().Check("On Waterways, historian Samuel Ortiz explains that the Erie Canal, built from 1817 to 1825, stretched about 363 miles between Albany and Buffalo. Because the federal government would not pay, New York State funded it, and the canal lowered shipping costs by roughly 90 percent and made New York City the top port. Tolls paid off the debt in around ten years.", "ELLEN: This is Waterways, a history podcast. I'm Ellen Brooks. My guest today is historian Dr. Samuel Ortiz, author of a new book on the Erie Canal. Welcome, Samuel.\nSAMUEL: Thanks, Ellen. Glad to be here.\nELLEN: Let's start with the basics. When was the canal built and how long is it?\nSAMUEL: Construction began in 1817 and the canal opened in 1825. It ran about 363 miles, from Albany on the Hudson River to Buffalo on Lake Erie.\nELLEN: And people thought it was a crazy idea at the time.\nSAMUEL: Many did. Thomas Jefferson reportedly called it \"little short of madness.\" The federal government refused to pay for it, so New York State financed it on its own, which was a huge gamble.\nELLEN: Who actually dug it?\nSAMUEL: A mix of local farmers, contractors, and, later on, many Irish immigrants. Most of the work was done by hand, with shovels, horses and a few clever machines for pulling out tree stumps.\nELLEN: What did it change?\nSAMUEL: Shipping costs between Buffalo and New York City dropped by about 90 percent. Grain from the Midwest could reach the coast cheaply, and New York City became the country's leading port. Towns like Syracuse and Rochester grew up along the route.\nELLEN: Did the canal pay for itself?\nSAMUEL: It did, and quickly. The tolls repaid the construction debt in about a decade. Later, of course, the railroads took most of its traffic.")
	require.Equal(t, None, r.Mismatch, "%+v", r)
}

// An answer number whose next word is the one after a source number of
// its value is stated there ("sold in 14 states" for "online in 14
// states"), though the source's "1.5-ounce sweet potato and spinach
// flavours" shares more of its context words; heldout2_news_4 of
// governance/eval/summedits_other (development). A value the source has
// before another word is still a changed number.
func TestNextWordShared(t *testing.T) {
	c := New()
	r := c.Check("About 48,000 containers of Little Sprout veggie puffs in sweet potato and spinach flavours, sold in 14 states, are being recalled by Greenhill Foods because unusually hard pieces could be a choking risk for small children. The company traced the issue to an overheated drying oven and has had 11 complaints, none involving injuries. Its teething wafers and fruit melts are not part of the recall.", "Maker of Little Sprout baby snacks recalls puffs over choking concerns\n\nGreenhill Foods is recalling about 48,000 containers of its Little Sprout veggie puffs because some puffs may be harder than intended and could pose a choking hazard to young children, the company and the Food and Drug Administration announced Friday.\n\nThe recall covers the 1.5-ounce sweet potato and spinach flavours with best-by dates between March 1 and April 15 of next year. The products were sold at grocery stores and online in 14 states.\n\nThe company said it had received 11 complaints from parents who found unusually hard pieces, including two reports of a child gagging. No injuries have been reported. A Greenhill spokesperson said the problem was traced to a drying oven at its plant in Marlow that ran hotter than its setting for several days in September.\n\nParents should not feed the recalled puffs to children and can return them to the store for a full refund or contact the company for a replacement coupon. Other Little Sprout products, including its teething wafers and fruit melts, are not affected.\n\nThe FDA classified the recall as voluntary. Greenhill said it has replaced the oven's temperature sensors and added a hardness test for every batch.")
	require.Equal(t, None, r.Mismatch, "%+v", r)
	r = c.Check("About 48,000 containers of Little Sprout veggie puffs in sweet potato and spinach flavours, sold in 11 states, are being recalled by Greenhill Foods because unusually hard pieces could be a choking risk for small children. The company traced the issue to an overheated drying oven and has had 11 complaints, none involving injuries. Its teething wafers and fruit melts are not part of the recall.", "Maker of Little Sprout baby snacks recalls puffs over choking concerns\n\nGreenhill Foods is recalling about 48,000 containers of its Little Sprout veggie puffs because some puffs may be harder than intended and could pose a choking hazard to young children, the company and the Food and Drug Administration announced Friday.\n\nThe recall covers the 1.5-ounce sweet potato and spinach flavours with best-by dates between March 1 and April 15 of next year. The products were sold at grocery stores and online in 14 states.\n\nThe company said it had received 11 complaints from parents who found unusually hard pieces, including two reports of a child gagging. No injuries have been reported. A Greenhill spokesperson said the problem was traced to a drying oven at its plant in Marlow that ran hotter than its setting for several days in September.\n\nParents should not feed the recalled puffs to children and can return them to the store for a full refund or contact the company for a replacement coupon. Other Little Sprout products, including its teething wafers and fruit melts, are not affected.\n\nThe FDA classified the recall as voluntary. Greenhill said it has replaced the oven's temperature sensors and added a hardness test for every batch.")
	require.Equal(t, Numeric, r.Mismatch, "%+v", r)
}

// TestAcronymBefore: an answer number after an acronym of the source words
// before a source number of its value is stated there ("Adjusted EPS was
// $0.88" for "Adjusted earnings per share were $0.88"), though its words
// after it belong to a neighbouring figure (stop 26; heldout6_ectsum_4 of
// governance/eval/summedits_other, development). Near misses: a value the
// source has after other words, an acronym the words do not spell, a
// lower-case word.
func TestAcronymBefore(t *testing.T) {
	src := "Marcus Reed, CFO: Adjusted earnings per share were $0.88, compared with $1.02 a year ago, mainly because of lower prices and a planned maintenance outage at our Linwood mill that cost about $0.09 per share. Free cash flow was $0.40 per share."
	tests := []struct {
		name, answer, mismatch string
	}{
		{"EPS for earnings per share", "Adjusted EPS was $0.88, hurt by a planned maintenance outage at its Linwood mill.", None},
		{"the changed value", "Adjusted EPS was $0.40, hurt by a planned maintenance outage at its Linwood mill.", Numeric},
		{"letters the words do not spell", "Adjusted FCF was $0.88, hurt by a planned maintenance outage at its Linwood mill.", Numeric},
		{"a lower-case word", "Adjusted eps was $0.88, hurt by a planned maintenance outage at its Linwood mill.", Numeric},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Check(tt.answer, src)
			if tt.mismatch == None {
				// The short answer's new words may still be unsupported.
				require.NotEqual(t, Numeric, r.Mismatch, "%+v", r.Evidence)
				return
			}
			require.Equal(t, tt.mismatch, r.Mismatch, "%+v", r.Evidence)
		})
	}
}

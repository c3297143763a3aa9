package breed

// hitierBreeds is the Rasseschlüssel of ViehVerkV Anlage 6 as far as it could be read (keys
// 01 to 26; 07 and 08 are not in it): the key, the breed, its Kurzbezeichnung and the
// alternative names the same table gives.
var hitierBreeds = []Breed{
	{Code: "01", Name: "Holstein-Schwarzbunt", Short: "SBT", Aliases: []string{"Deutsche Holstein-Schwarzbunt"}},
	{Code: "02", Name: "Holstein-Rotbunt", Short: "RBT", Aliases: []string{"Deutsche Holstein-Rotbunt"}},
	{Code: "03", Name: "Jersey", Short: "JER", Aliases: []string{"Deutsche Jersey"}},
	{Code: "04", Name: "Braunvieh", Short: "BV"},
	{Code: "05", Name: "Angler", Short: "RVA"},
	{Code: "06", Name: "Rotvieh alter Angler Zuchtrichtung", Short: "RV"},
	{Code: "09", Name: "Rotbunt DN", Short: "RDN", Aliases: []string{"Doppelnutzung Rotbunt"}},
	{Code: "10", Name: "Deutsches Schwarzbuntes Niederungsrind", Short: "DSN",
		Aliases: []string{"Deutsches Schwarzbuntes Niederungsrind (DSN)", "Deutsche Schwarzbunte alter Zuchtrichtung"}},
	{Code: "11", Name: "Fleckvieh", Short: "FL"},
	{Code: "12", Name: "Gelbvieh", Short: "GV", Aliases: []string{"Franken Doppelnutzung"}},
	{Code: "13", Name: "Pinzgauer", Short: "PIN", Aliases: []string{"Pinzgauer alter Zuchtrichtung"}},
	{Code: "14", Name: "Hinterwälder", Short: "HIN"},
	{Code: "15", Name: "Murnau-Werdenfelser", Short: "MW"},
	{Code: "16", Name: "Vorderwälder", Short: "VW"},
	{Code: "17", Name: "Limpurger Rind", Short: "LMP"},
	{Code: "18", Name: "Braunvieh alter Zuchtrichtung", Short: "DBV", Aliases: []string{"Deutsches Braunvieh alter Zuchtrichtung"}},
	{Code: "19", Name: "Ayrshire", Short: "AS"},
	{Code: "20", Name: "Vogesen-Rind", Short: "VR"},
	{Code: "21", Name: "Charolais", Short: "CHA"},
	{Code: "22", Name: "Limousin", Short: "LIM"},
	{Code: "23", Name: "Weißblaue Belgier", Short: "WBB"},
	{Code: "24", Name: "Blonde d’Aquitaine", Short: "BA"},
	{Code: "25", Name: "Maine Anjou", Short: "MA"},
	{Code: "26", Name: "Salers", Short: "SAL"},
}

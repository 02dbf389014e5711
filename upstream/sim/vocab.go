package sim

// Word lists of the synthetic world. Post texts are ASCII so that entity
// indices are the same in bytes, runes and UTF-16 units; names and bios may
// carry other characters.

// Categories are the account categories (B2B login filter `categories`) the
// simulator assigns to users, as normalized slugs.
var Categories = []string{
	"founders", "exchanges", "coin", "perp_coins", "kols", "vc", "devs", "nft",
	"memes", "news", "defi", "ai", "traders", "analysts", "solana", "ethereum",
	"bitcoin", "gaming", "influencers", "researchers",
}

// categoryDisplay are upstream spellings of some slugs; the engine folds case
// and spaces (protocol.NormalizeCategory), so these exercise that.
var categoryDisplay = map[string]string{
	"perp_coins": "Perp Coins", "kols": "KOLs", "vc": "VC", "ai": "AI",
	"nft": "NFT", "defi": "DeFi", "founders": "Founders", "news": "News",
}

// TrendingCategories are the 24 trending slugs the simulator uses (spec 3
// shows crypto, news, sports, music and technology; the rest are ours).
var TrendingCategories = []string{
	"crypto", "news", "sports", "music", "technology", "politics", "business",
	"finance", "entertainment", "gaming", "science", "health", "movies",
	"television", "celebrities", "fashion", "food", "travel", "ai", "memes",
	"nft", "defi", "esports", "anime",
}

var handleWords = []string{
	"sol", "degen", "alpha", "chart", "based", "crypto", "moon", "whale", "ape",
	"gm", "onchain", "defi", "nft", "meme", "pump", "wagmi", "anon", "sats",
	"block", "node", "zk", "eth", "btc", "bags", "rekt", "fomo", "hodl", "yield",
	"mint", "jeet", "ser", "fren", "dao", "vault", "pixel", "rug", "lambo",
	"candle", "perp", "delta", "gamma", "theta", "cipher", "quant", "macro",
	"atlas", "nova", "orbit", "lunar", "solar", "echo", "byte", "hash", "ghost",
}

var handleTails = []string{
	"mike", "queen", "lord", "trader", "capital", "labs", "fi", "research",
	"news", "guy", "maxi", "chad", "hunter", "intern", "wizard", "fox", "cat",
	"dog", "king", "sensei", "monk", "pilot", "ninja", "calls", "alpha", "dev",
	"builder", "whale", "fund", "desk", "daily", "hq", "xyz", "szn", "boi",
	"anon", "enjoyer", "maxxi", "sniper", "scout",
}

var firstNames = []string{
	"Mike", "Sarah", "Alex", "Chris", "Jordan", "Taylor", "Sam", "Dana", "Leo",
	"Nina", "Omar", "Priya", "Kenji", "Lucas", "Mia", "Noah", "Ava", "Ethan",
	"Zoe", "Ivan", "Sofia", "Mateo", "Yuki", "Ada", "Hugo", "Lena", "Ravi",
	"Chen", "Amara", "Felix", "Iris", "Jonas", "Kai", "Luna", "Marco", "Nora",
}

var lastNames = []string{
	"Chen", "Park", "Silva", "Müller", "Novak", "Okafor", "Rossi", "Tanaka",
	"Khan", "Garcia", "Smith", "Dubois", "Ivanova", "Costa", "Nakamura",
	"Patel", "Kowalski", "Haddad", "Berg", "Moreau",
}

var nameDecor = []string{"", "", "", "", " 🟣", " ⚡", " 🐋", " (🌸, 🌿)", " | NFA", " 🇺🇸", " ☀️"}

var brandWords = []string{
	"Apex", "Nova", "Orbit", "Kite", "Summit", "Vertex", "Harbor", "Prism",
	"Quantum", "Lumen", "Meridian", "Aurora", "Falcon", "Cobalt", "Ember",
}

var brandKinds = map[string][]string{
	"exchanges": {"Exchange", "Markets", "Trade", "X"},
	"vc":        {"Capital", "Ventures", "Partners", "Fund"},
	"news":      {"News", "Daily", "Wire", "Report"},
	"devs":      {"Labs", "Protocol", "Foundation"},
	"defi":      {"Finance", "Swap", "Protocol"},
	"ai":        {"AI", "Labs", "Intelligence"},
}

var bioByCategory = map[string][]string{
	"founders":    {"Founder @%s. Building the onchain future.", "cofounder & ceo. shipping daily.", "building something new. prev: two exits.", "founder. we are hiring engineers."},
	"exchanges":   {"The world's fastest crypto exchange. Support: help@%s.example", "Trade 500+ assets with deep liquidity.", "Official account. We will never DM you first."},
	"coin":        {"Official account of the %s token. Community owned.", "The people's coin. No team tokens. CTO.", "community takeover. we ride together."},
	"perp_coins":  {"perps only. 50x or nothing.", "perp trader. funding rate enjoyer.", "long vol, short patience."},
	"kols":        {"calls are not financial advice. dyor.", "early to everything. 100k+ community.", "I find gems before they pump. NFA."},
	"vc":          {"Investing in early stage crypto founders.", "Partner @%s. Pre-seed to Series A.", "Backing the builders of web3."},
	"devs":        {"rust, zk, and too much coffee", "smart contract engineer. audits open.", "building dev tools for solana"},
	"nft":         {"pfp collector. art over everything.", "NFT curator. 1/1s and generative art.", "floor sweeper. gm."},
	"memes":       {"meme enjoyer. professional shitposter.", "memes are the culture.", "if it's funny it's a buy"},
	"news":        {"Breaking crypto news, 24/7.", "Markets, policy and tech. Tips: tips@%s.example", "Fast headlines. No opinions."},
	"defi":        {"yield farmer since DeFi summer.", "liquidity provider. impermanent loss survivor.", "DeFi researcher. LP positions not advice."},
	"ai":          {"AI agents that trade for you.", "building autonomous onchain agents", "ml engineer by day, degen by night"},
	"traders":     {"full time trader. charts and coffee.", "price action only.", "scalper. risk managed."},
	"analysts":    {"onchain analyst. data over narratives.", "I read charts so you don't have to.", "macro, flows and positioning."},
	"solana":      {"solana maxi. fast chain, fast money.", "validator operator on solana.", "SOL since $2"},
	"ethereum":    {"ethereum everything. L2 enjoyer.", "eth staker. ultrasound.", "rollups are the future"},
	"bitcoin":     {"Bitcoin only. Stack sats.", "21 million.", "ordinals and runes builder"},
	"gaming":      {"web3 gaming guild. play and earn.", "streamer. gamer. degen.", "building onchain games"},
	"influencers": {"creator. 1M+ across platforms.", "lifestyle, crypto and travel", "collabs: dm open"},
	"researchers": {"research @%s. threads on protocols.", "cryptography researcher.", "writing about mechanism design"},
}

var genericBios = []string{
	"just here for the memes", "gm. trader and builder.", "views are my own",
	"learning every day", "dad, dev, degen", "coffee, code, crypto", "",
	"not financial advice", "probably nothing", "wagmi", "🌱 growing slowly",
}

var locations = []string{
	"New York, NY", "San Francisco, CA", "London", "Singapore", "Dubai",
	"Lisbon, Portugal", "Berlin", "Tokyo", "Miami, FL", "Toronto", "Seoul",
	"Paris", "Zug, Switzerland", "Hong Kong", "Austin, TX", "onchain", "the trenches",
	"Metaverse", "Buenos Aires", "Lagos, Nigeria",
}

var websiteHosts = []string{".xyz", ".io", ".com", ".fi", ".app", ".gg"}

var tokenNames = []struct{ name, sym string }{
	{"Dog Wif Hat Two", "WIF2"}, {"Pepe Classic", "PEPEC"}, {"Moon Cat", "MCAT"},
	{"Based Frog", "BFROG"}, {"Solana Shiba", "SSHIB"}, {"Giga Chad", "GIGA"},
	{"Retard Finder Coin", "RFC"}, {"Bonk Jr", "BONKJR"}, {"Popcat Inu", "PCAT"},
	{"Hamster Wheel", "WHEEL"}, {"Cat In A Box", "BOX"}, {"Goat Sigma", "GOATS"},
	{"AI Agent Zero", "ZERO"}, {"Truth Terminal", "TRUTH"}, {"Fartcoin Two", "FART2"},
	{"Penguin Party", "PENGU"}, {"Michi Coin", "MICHI"}, {"Mog Coin", "MOG"},
	{"Slerf Coin", "SLERF"}, {"Book Of Memes", "BOME"}, {"Chill Guy", "CHILL"},
	{"Moo Deng", "MOODENG"}, {"Useless Coin", "USELESS"}, {"Neiro", "NEIRO"},
	{"Bald Eagle", "BALD"}, {"Dev Is Based", "BASED"}, {"Sigma Pepe", "SPEPE"},
	{"Wojak Coin", "WOJAK"}, {"Just A Chill Guy", "CHILLGUY"}, {"Gorilla", "GORILLA"},
	{"Turbo Frog", "TURBO"}, {"Ponke", "PONKE"}, {"Maneki Neko", "NEKO"},
	{"Sol Kitty", "KITTY"}, {"Grok Cat", "GROKCAT"}, {"Quant Agent", "QUANT"},
}

var majorTickers = []string{"SOL", "BTC", "ETH", "BONK", "WIF", "JUP", "PEPE", "DOGE", "HYPE", "SUI", "LINK", "JTO", "PYTH", "RAY", "TRUMP"}

var shillIntros = []string{
	"new launch", "just aped", "loading up on", "watching", "this one is cooking:",
	"early on", "don't fade", "chart looks clean on", "bought more", "aping",
	"CTO on", "dev is live on", "sending", "whales are buying", "quietly accumulating",
}

var shillComments = []string{
	"lfg", "nfa dyor", "this is going to send", "community takeover is real",
	"dev is based", "liquidity locked", "cup and handle forming", "100x potential",
	"still early", "volume is insane", "holders growing fast", "bonding curve almost full",
	"", "", "",
}

var marketComments = []string{
	"looking strong here", "reclaiming the range", "funding is flipping negative",
	"breakout incoming", "rejected at resistance again", "this is the dip you wanted",
	"open interest at highs", "bears are exhausted", "liquidity sweep then up",
	"ranging until the fed", "weekly close matters",
}

var chatter = []string{
	"gm", "gn", "wagmi", "probably nothing", "we are so early",
	"the bull market is a state of mind", "touch grass today, frens",
	"building in a bear market hits different", "most people will not make it and that's ok",
	"who is still up?", "shipping a new feature tomorrow", "the best time to build was yesterday",
	"stop checking charts every 5 minutes", "this cycle is different (it isn't)",
	"every day is a good day to learn rust", "market is boring, good time to build",
	"hot take: fees should be lower", "need a new narrative", "attention is the only asset",
	"my timeline is 90% ai agents now", "just got back from the conference, so much alpha",
	"writing a thread on this later", "if you know, you know",
}

var headlines = []string{
	"Breaking: major exchange lists new tokens", "SEC delays decision on spot ETF",
	"Stablecoin supply hits all time high", "Layer 2 fees drop 90% after upgrade",
	"New bill proposes clear rules for digital assets", "Hackers drain bridge in exploit",
	"Central bank signals rate cut", "Tech stocks rally on AI earnings",
	"Record volume on decentralized exchanges", "Validator count reaches new high",
	"Gaming studio raises new funding round", "Open source model beats benchmark",
	"Championship final ends in overtime", "New album breaks streaming records",
	"Box office weekend led by sequel", "Scientists announce fusion milestone",
}

var hashtagPool = []string{
	"Solana", "Bitcoin", "Ethereum", "crypto", "memecoin", "DeFi", "AI", "NFT",
	"web3", "BuildInPublic", "gm", "altseason", "onchain", "airdrop",
}

var communityNames = []struct{ name, desc string }{
	{"Solana Builders", "ship it"}, {"Perp Degens", "leverage is a tool"},
	{"AI Agents", "autonomous agents onchain"}, {"NFT Collectors", "art, pfps and floors"},
	{"Memecoin Trenches", "where the calls happen"}, {"Base Builders", "onchain summer never ends"},
	{"ZK Research", "zero knowledge, full understanding"}, {"Yield Farmers", "APY hunters"},
	{"Bitcoin Ordinals", "inscriptions and runes"}, {"Founders Club", "for people building companies"},
	{"Crypto Twitter", "the timeline, but organized"}, {"VC Deal Flow", "founders meet funds"},
	{"Rust Devs", "fearless concurrency"}, {"Onchain Analysts", "follow the money"},
	{"Pump Hunters", "first in, first out"}, {"DeFi Security", "audits and incident reports"},
	{"Airdrop Farmers", "points, points, points"}, {"Macro Desk", "rates, flows, liquidity"},
	{"Web3 Gaming", "play, own, trade"}, {"Solana Validators", "stake and operate"},
	{"Ethereum Research", "protocol design discussions"}, {"Market Makers", "spreads and inventory"},
	{"Token Designers", "tokenomics done right"}, {"Creator Coins", "creators onchain"},
	{"Late Night Traders", "asia session crew"}, {"Bot Builders", "trading bots and infra"},
	{"Privacy Tech", "privacy is normal"}, {"Stablecoin Nerds", "pegs and reserves"},
	{"Jupiter Community", "swap enjoyers"}, {"Hyperliquid Traders", "perps onchain"},
	{"Degen Art", "memes as art"}, {"Cat Coins", "cats > dogs"},
	{"Frog Nation", "ribbit"}, {"Governance Nerds", "proposals and votes"},
	{"Solana Mobile", "seeker owners"}, {"Alpha Callers", "calls with receipts"},
}

var communityNameSuffix = []string{" HQ", " Official", " 2.0", " Club", " Collective", " (New)"}

var communityDescs = []string{
	"no shilling outside the weekly thread", "be kind, share alpha", "official community",
	"read the rules before posting", "builders only", "daily threads, weekly calls",
	"verified members only", "memes welcome",
}

var theses = []string{
	"strong community", "dev is doxxed and active", "early and undervalued",
	"narrative play on AI agents", "clean chart, low market cap", "CTO with real volume",
	"whales accumulating", "listed soon", "viral meme potential", "bonding curve filling fast",
}

var callerNames = []string{
	"alphacaller", "gemhunter", "solsniper", "moonscout", "degenoracle",
	"callsbyjay", "earlybird_sol", "trenchking", "100xfinder", "chartwizard",
	"apeintel", "pumpwatch",
}

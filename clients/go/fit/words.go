// Words cl100k holds whole, as the TypeScript library lists them (looked up by hash).

package fit

const commonWords = "" +
	"aaron abandon abandoned abdom abilities ability abnormal aboard abort abortion about above abraham " +
	"abroad absence absent absolute absolutely absor absorb abstract absurd abund abundance abuse abused " +
	"academic academy acceler acceleration accent accept acceptable acceptance accepted accepting accepts " +
	"access accessed accessible accessing accessories accident accidentally accidents accom accommod " +
	"accommodate accommodation accompanied accompany accompanying accompl accomplish accomplished accord " +
	"accordance according accordingly account accountability accountable accounting accounts accum accur " +
	"accuracy accurate accurately accus accusations accused achie achieve achieved achievement " +
	"achievements achieving acids acknow acknowled acknowledge acknowledged acquire acquired acquisition " +
	"acres across acted acting action actions activ activate activated activation active actively " +
	"activist activists activities activity actor actors actress actual actually acute adalah adams adapt " +
	"adaptation adapted adapter added addict addiction adding addition additional additionally additions " +
	"address addressed addresses addressing adequate adher adjacent adjust adjustable adjusted adjustment " +
	"adjustments admin administer administered administr administration administrative administrator " +
	"administrators admission admit admits admitted adobe adoles adolescent adopt adopted adoption adult " +
	"adults advance advanced advances advant advantage advantages advent adventure adventures advers " +
	"adverse advert advertis advertisement advertising advice advis advise advised adviser advisor advoc " +
	"advocacy advocate advocates aesthetic affair affairs affect affected affecting affection affects " +
	"affero affili affiliate affiliated affiliates affirm afford affordable afghan afghanistan afraid " +
	"africa african after afternoon afterwards again against agencies agency agenda agent agents aggreg " +
	"aggregate aggress aggressive aging agree agreed agreeing agreement agreements agrees agricult " +
	"agricultural agriculture ahead aimed aiming aircraft airline airlines airport alabama alarm alaska " +
	"albert alberta album albums alcohol alert alerts alexand alexander algorithm algorithms algun alias " +
	"alice alien aliens align aligned alignment alike aliment alive allah alleg allegations alleged " +
	"allegedly allen allerg alles alliance allies alloc allocate allocated allocation allow allowed " +
	"allowing allows almost alone along alongside alpha alphabet already alter altered altern alternate " +
	"alternative alternatively alternatives although altitude altogether aluminum always amateur amazing " +
	"amazon ambassador ambient ambit ambitious amend amended amendment amenities americ america american " +
	"americans ammunition among amongst amount amounts amsterdam analog analy analys analyses analysis " +
	"analyst analysts analytics analyze analyzed ancest ancestors anche anchor ancient andere anderen " +
	"anderson andre andrew android androidx angel angela angeles anger angle angles angry angular animal " +
	"animals animate animated animation animations anime ankle anniversary annot annotation annotations " +
	"announc announce announced announcement announcing annoy annoying annual annually annunci anonym " +
	"anonymous another answer answered answering answers anterior antes anthony antib antibiot anticip " +
	"anticipated anton antonio anxiety anxious anybody anymore anyone anything anytime anyway anywhere " +
	"apache apart apartment apartments aplic apollo apolog apologize apost appar apparent apparently " +
	"appeal appealing appeals appear appearance appearances appeared appearing appears append appet " +
	"appetite apple appliances applic applicable applicant applicants application applications applied " +
	"applies apply applying appoint appointed appointment appointments apprec appreciate appreciated " +
	"appreciation appro approach approached approaches approaching appropri appropriate appropriately " +
	"approval approve approved approx approximately april arabia arabic arbit arbitrary archae architect " +
	"architecture archive archives archivo arctic areas arena argentina argparse arguably argue argued " +
	"argues arguing argument arguments arise arithmetic arizona arkansas armed armen armor around arrang " +
	"arrange arranged arrangement arrangements array arrays arrest arrested arrests arrival arrive " +
	"arrived arrives arriving arrow arrows arsenal arthur artic article articles artifact artifacts " +
	"artificial artist artistic artists artwork ascending ashley asian aside asked asking asleep aspect " +
	"aspects aspir assad assass assault assembled assembly assert assertion assess assessed assessment " +
	"asset assets assign assigned assignment assignments assist assistance assistant assisted assists " +
	"associ associate associated association associations assum assume assumed assumes assuming " +
	"assumption assumptions assure assured aster aston asylum async athlete athletes athletic atlanta " +
	"atlantic atmos atmosphere atomic atoms attach attached attachment attachments attack attacked " +
	"attacker attacking attacks attain attempt attempted attempting attempts attend attendance attended " +
	"attending attention attitude attitudes attorney attorneys attract attracted attraction attractions " +
	"attractive attrib attribute attributed attributes attrs auction audience audiences audio audit " +
	"august aussi austin austral australia australian austria authentic authenticate authenticated " +
	"authentication author authorities authority authorization authorize authorized authors autism " +
	"autocomplete autom automated automatic automatically automation automobile autonomous autor avail " +
	"availability available avant avatar avenue average averaged avoid avoided avoiding avoir await awake " +
	"award awarded awards aware awareness awesome awful awkward axios azure babies backdrop backed " +
	"backend background backgrounds backing backpack backs backup backward backwards backyard bacter " +
	"bacteria badge badly baise baker baking balance balanced balances balcon ballot balls baltimore " +
	"bands bandwidth bangladesh banking bankrupt bankruptcy banks banned banner barack barbara barcelona " +
	"barely barrel barrier barriers barry baseball based baseline basement basename bases basic basically " +
	"basics basis basket basketball batch bathroom batman batter batteries battery battle battlefield " +
	"battles bcrypt beach beaches beans bearing bearings bears beast beaten beating beats beaut beautiful " +
	"beautifully beauty became because become becomes becoming bedroom bedrooms beers before began begin " +
	"beginning begins begun behalf behave behavior behavioral behaviors behaviour behind beijing being " +
	"beings belgium belie belief beliefs believe believed believes believing belle belly belong belonging " +
	"belongs beloved below bench benchmark beneath benef benefici beneficial benefit benefits benjamin " +
	"bennett berkeley berlin bernard bernie beside besides beste betray better betting between bever " +
	"beyond bgcolor bible bicycle biden bigger biggest bikes bilder billing billion billions bills billy " +
	"binary binding bindings biological biology birds birmingham birth birthday bishop bitcoin bitmap " +
	"bitter bizarre black blade blake blame blamed blank blanket blast bleeding blend bless blessed blind " +
	"blink block blockchain blocked blocking blocks blogs blonde blood bloody bloom bloomberg blowjob " +
	"blown blueprint blues bluetooth board boards boasts boats bobby bodies boiler bombing bombs bonds " +
	"bones bonus bonuses booked booking bookmark books boolean boost booth boots bootstrap border borders " +
	"bored boring borrow boston bother bottle bottles bottom bought bounce bound boundaries boundary " +
	"bounding bounds boxes boyfriend brace bracket bradley brady brain brains brake branch branches brand " +
	"brandon brands brass brave brazil brazilian breach bread break breakdown breakfast breaking breaks " +
	"breast breasts breat breath breathe breathing breed brexit brian brick bridge brief briefly bright " +
	"brightness brill brilliant bring bringing brings britain british broad broadcast broader broadway " +
	"broke broken broker brook brooklyn brooks brother brothers brought brown brows browse browser " +
	"browsers browsing bruce brush brussels brutal bryan bubble bucket buddy budget buffalo buffer " +
	"buffered buffers build builder building buildings builds built bullet bullets bunch bundle burden " +
	"bureau bureauc bureaucr buried burned burning burst buses business businesses butler butter button " +
	"buttons buyer buyers buying bypass bytes cabin cabinet cabinets cable cables cache cached caffe " +
	"calcium calcul calculate calculated calculating calculation calculations calculator calendar calgary " +
	"calibration california callback callbacks called caller calling calls calories cambridge camera " +
	"cameras cameron campaign campaigns campbell camping campo camps campus canada canadian canadians " +
	"cancel canceled cancell cancellation cancelled cancer candid candidate candidates candle candy " +
	"cannabis cannot canon cantidad canvas capabilities capability capable capac capacity capital " +
	"capitalism capitol captain caption capture captured caracter carbon cardio cards career careers " +
	"careful carefully cares cargo caribbean caring carlos carol carolina carpet carried carrier carriers " +
	"carries carry carrying carter cartoon cases casino casinos casting castle casual catal catalog " +
	"catast catch catches catching categor categories category cater catholic cattle caught cause caused " +
	"causes causing caution cease ceiling celebr celebrate celebrated celebrating celebration celebrity " +
	"cellpadding cells cellspacing cellular cement center centered centers centr central centre centres " +
	"cents centuries century cerca ceremony certain certainly certificate certificates certification " +
	"certified cette chain chains chair chairman chairs chall challeng challenge challenged challenges " +
	"challenging chamber champ champion champions championship chance chances chang change changed " +
	"changes changing channel channels chaos chapter chapters character characteristic characteristics " +
	"characterized characters charg charge charged charges charging charity charles charlie charlotte " +
	"charm charming chars charset chart charter charts chase cheap cheaper check checkbox checked " +
	"checking checkout checkpoint checks checksum cheer cheese chelsea chemical chemicals chemistry chess " +
	"chest chicago chick chicken chief child childhood children chile chill china chinese chips chlor " +
	"chocolate choice choices cholesterol choose choosing chopped chose chosen chris christ christian " +
	"christianity christians christmas christopher chrom chrome chron chronic chuck chunk chunks church " +
	"churches cialis cigaret cigarette cigarettes cincinnati cinema cipher circle circles circuit " +
	"circular circulation circum circumstances cited cities citing citiz citizen citizens citizenship " +
	"civil civilian civilians civilization claim claimed claiming claims clang clarify clarity clark " +
	"class classe classes classic classical classification classified classifier classroom clause clazz " +
	"clean cleaned cleaner cleaning cleans cleanup clear clearance cleared clearfix clearing clearly " +
	"cleveland clever click clicked clicking clicks client cliente clients climate climb climbing clinic " +
	"clinical clinton clips clock clone close closed closely closer closes closest closet closing closure " +
	"cloth clothes clothing cloud clouds clubs cluster clusters coach coaches coaching coalition coast " +
	"coastal cocaine coconut codec codes codigo coding coeff coefficient coefficients coffee cognitive " +
	"cohen coinc coins collabor collaboration collapse collapsed collar colle colleague colleagues " +
	"collect collected collecting collection collections collective collector colleg college colleges " +
	"collins collision colomb colombia colon colonial color colorado colored colorful coloring colors " +
	"colour colours colspan colum columbia columbus column columns combat combination combinations " +
	"combine combined combines combining combo comedy coment comes comey comfort comfortable comic comics " +
	"coming comma command commander commands comme comment commentary commented comments commerce " +
	"commercial commission commissioner commit commitment committed committee commod commodity common " +
	"commonly commons commonwealth commun communic communicate communication communications communist " +
	"communities community compact compan companies companion company compar comparable compare compared " +
	"comparing comparison comparisons compart compass compassion compat compatibility compatible " +
	"compelling compens compensation compet compete competing competition competitive competitors " +
	"compilation compile compiled compiler compl complain complained complaint complaints comple " +
	"complement complet complete completed completely completing completion complex complexity compliance " +
	"complicated complications compliment comply component components compose composed composite " +
	"composition compound compounds compr compreh comprehensive compress compressed compression comprom " +
	"compromise comput computation compute computed computer computers computing concat conce conced " +
	"concent concentr concentrate concentrated concentration concentrations concept concepts concern " +
	"concerned concerning concerns concert conclude concluded conclusion conclusions concrete concurrent " +
	"condem condemned condition conditional conditioning conditions condom conduct conducted conducting " +
	"confeder conference conferences confidence confident confidential config configuration " +
	"configurations configure configured confirm confirmation confirmed conflic conflict conflicts " +
	"conform confront confused confusing confusion congr congress congressional conjunction connect " +
	"connected connecticut connecting connection connections connectivity connector connects conoc conqu " +
	"consc conscious consciousness conse consec consect consectetur consecutive consensus consent consequ " +
	"consequence consequences conserv conservation conservative conservatives consider considerable " +
	"considerably consideration considerations considered considering considers consist consistency " +
	"consistent consistently consisting consists console consolid conspir conspiracy const constant " +
	"constantly constants constexpr constit constitu constitute constitution constitutional constr " +
	"constraint constraints construct constructed construction constructor consult consultant " +
	"consultation consulting consum consume consumed consumer consumers consuming consumption contact " +
	"contacted contacts contain contained container containers containing contains contamin contempl " +
	"contemporary content contents contest context contexts contin continent conting continu continually " +
	"continue continued continues continuing continuous continuously contr contra contract contractor " +
	"contractors contracts contrad contrary contrast contrib contribute contributed contributing " +
	"contribution contributions contributor contributors control controlled controller controllers " +
	"controlling controls controvers controversial controversy conven convenience convenient convent " +
	"convention conventional conver convers conversation conversations conversion convert converted " +
	"converter converting converts convey convicted conviction convin convinc convince convinced cooked " +
	"cookie cookies cooking cooler cooling cooper cooperation coord coordin coordinate coordinates " +
	"coordination coordinator coords copied copies copper copying copyright cores corner corners coron " +
	"coronavirus corpor corporate corporation corporations corps corre correct corrected correction " +
	"correctly correl correlation correspond corresponding corresponds corrid corrupt corruption costa " +
	"costly costs costume cotton couch could couldn council counsel count counted counter counterparts " +
	"counters counties counting countless countries country counts county couple coupled couples coupon " +
	"coupons courage course courses court courtesy courts cousin cover coverage covered covering covers " +
	"covid crack craft crafted craig crash crashed crashes crate crazy cream creat create created creates " +
	"creating creation creative creativity creator creators creature creatures credentials credibility " +
	"credit credits creek creep cricket cried crime crimes criminal criminals crisis crist criteria " +
	"criterion critic critical criticism criticized critics crops cross crossed crossing crossorigin " +
	"crowd crowded crowds crown crucial crude cruel cruise crush crushed crusher crushers crushing crying " +
	"crypt crypto cryptoc cryptocurrency cryst crystal cuando cuenta cuisine cultiv cultural culture " +
	"cultures curious currencies currency current currently curriculum cursor curve curves custody custom " +
	"customer customers customize customized customs cutting cyber cycle cycles cycling cylinder czech " +
	"dados daily dairy dakota dalam dallas damage damaged damages damaging dance dancing danger dangerous " +
	"dangers daniel danny darkness dashboard database databases dataframe datas dataset datasets dated " +
	"dates datetime dating datos daughter daughters david davis deadline deadly dealer dealers dealing " +
	"deals dealt death deaths debate debates debris debug debugging debut decade decades decay december " +
	"decent decentral decide decided decides deciding decimal decis decision decisions decks declar " +
	"declaration declarations declare declared declaring decline declined decode decoded decoder decom " +
	"decor decorated decoration decre decrease decreased decrypt dedicated dedication deduct deduction " +
	"deemed deeper deeply default defaults defeat defeated defect defence defend defendant defended " +
	"defender defending defense defensive defer deferred deficit defin define defined defines defining " +
	"definit definitely definition definitions degree degrees delay delayed delays deleg delegate " +
	"delegates delet delete deleted deleting deletion delhi deliber deliberately delicate delicious " +
	"delight delighted delimiter deliver delivered delivering delivers delivery della delle delta demand " +
	"demanded demanding demands democr democracy democrat democratic democrats demographic demol demon " +
	"demonstr demonstrate demonstrated demonstrates demonstration dengan denial denied denmark dennis " +
	"dense density dental dentro denver depart department departments departure depend dependencies " +
	"dependency dependent depending depends deploy deployed deployment deport depos deposit deposits " +
	"deprecated depress depression depth deputy deriv derivative derived descent descri describe " +
	"described describes describing description descriptions descriptor desde deserialize desert deserve " +
	"deserves design designated designed designer designers designing designs desirable desire desired " +
	"desires desktop desper desperate desperately despite destination destinations destroy destroyed " +
	"destroying destruct destruction detail detailed details detained detect detected detection detector " +
	"detention deter deterior determin determination determine determined determines determining detroit " +
	"deutsch devast devastating develop developed developer developers developing development " +
	"developments develops deviation device devices devil devoted diabetes diagn diagnosed diagnosis " +
	"diagnostic diagonal diagram dialog dialogue diameter diamond dictionary diego diese diesel diesem " +
	"dieser dietary difer differ difference differences different differently difficult difficulties " +
	"difficulty digest digit digital digits dignity dildo dilig dimension dimensions dining dinner diplom " +
	"diplomatic direct directed direction directions directive directly director directories directors " +
	"directory dirname dirty disabilities disability disable disabled disadv disag disagree disap disappe " +
	"disappear disappeared disappoint disappointed disappointing disaster discard discharge discipl " +
	"discipline disclaimer disclose disclosed disclosure disconnect discord discount discounts discour " +
	"discover discovered discovery discre discret discretion discrim discrimination discuss discussed " +
	"discusses discussing discussion discussions disease diseases dishes dismiss dismissed disney " +
	"disorder disorders dispar dispatch dispatcher dispens displ display displayed displaying displays " +
	"dispon disposal dispose disposed disposing disput dispute disrupt disse dissert dissertation " +
	"distance distances distant distinct distinction distinctive distingu distinguish distinguished distr " +
	"distress distrib distribute distributed distribution district districts distur disturb disturbing " +
	"diver divers diverse diversity divert divid divide divided divine division divisions divorce django " +
	"docker doctor doctors doctrine document documentary documentation documented documents doesn doing " +
	"dollar dollars dolor domain domains domestic domin dominant dominated donald donate donated donation " +
	"donations donde donna donne donor donors doors doses double doubled doubt dough douglas download " +
	"downloaded downloading downloads downtown dozen dozens draft drafted dragged dragon drain drama " +
	"dramatic dramatically drawer drawing drawings drawn draws dread dream dreams dress dressed dresses " +
	"dressing dried drift drill drilling drink drinking drinks drive driven driver drivers drives driving " +
	"drone drones dropdown dropped dropping drops drought drove drugs drunk drupal dtype dubai dublin " +
	"dummy dumpster duplic duplicate durability durable durante duration durch during dutch duties dying " +
	"dynam dynamic dynamics dysfunction eager eagle eagles earlier earliest early earned earning earnings " +
	"earth earthqu earthquake easier easiest easily easter eastern eaten eating ebook eclipse econom " +
	"economic economics economies economy ecosystem edges editable edited editing edition editor " +
	"editorial editors educate educated education educational edward edwards effect effective effectively " +
	"effectiveness effects effic efficiency efficient efficiently effort efforts egypt egyptian eigen " +
	"eight eighth einem einen einer eines einfach either elabor elaborate elapsed elastic elder elderly " +
	"elect elected election elections electoral electric electrical electricity electro electron " +
	"electronic electronics elegant element elementary elements elevated elevation elevator eligible " +
	"elimin eliminate eliminated elite elizabeth eller elseif elsewhere elsif email emails embarrass " +
	"embed embedded embod embrace emerg emerge emerged emergency emerging emily emissions emotion " +
	"emotional emotionally emotions empath emperor emphas emphasis empir empire employ employed employee " +
	"employees employer employers employment empower empresa empty enable enabled enables enabling encode " +
	"encoded encoder encoding encompass encontr encore encount encounter encountered encounters encour " +
	"encourage encouraged encourages encouraging encrypt encrypted encryption enctype encuent endanger " +
	"ended endforeach endif ending endless endors endorse endpoint endpoints enemies enemy energ energy " +
	"enforce enforcement engage engaged engagement engaging engine engineer engineering engineers engines " +
	"england english enhance enhanced enhancement enjoy enjoyable enjoyed enjoying enjoys enorm enormous " +
	"enough enrich enrolled enrollment ensure ensures ensuring enter entered entering enterprise enters " +
	"entert entertaining entertainment enthus enthusi enthusiasm entire entirely entities entitled entity " +
	"entrance entre entreprene entrepreneur entrepreneurs entries entry enumer enumerate envelope " +
	"environment environmental environments enzym episode episodes epoch epsilon equal equality equally " +
	"equals equation equations equip equipment equipped equity equivalent erase erect erotic erotik " +
	"erotische errno error errors escal escape escaped escort escorts eskorte eslint especial especially " +
	"esper essay essays essence essential essentially essere establish established establishing " +
	"establishment estado estar estate estim estimate estimated estimates eternal ether ethereum ethical " +
	"ethics ethnic europa europe european euros evalu evaluate evaluated evaluating evaluation evangel " +
	"evans evening event events eventually every everybody everyday everyone everything everywhere " +
	"evidence evident evolution evolve evolved exact exactly exagger examination examine examined " +
	"examining example examples exceed exceeded exceeds excel excell excellence excellent except " +
	"exception exceptional exceptions excess excessive exchange exchanges excit excited excitement " +
	"exciting exclude excluded exclus exclusive exclusively excuse execut executable execute executed " +
	"executing execution executive executives executor exempl exempt exerc exercise exercises exhaust " +
	"exhausted exhib exhibit exhibition exist existe existed existence existing exists exotic expand " +
	"expanded expanding expansion expect expectation expectations expected expecting expects exped expend " +
	"expense expenses expensive exper experi experience experienced experiences experiencing experiment " +
	"experimental experiments expert expertise experts expiration expire expired expires explain " +
	"explained explaining explains explan explanation explicit explicitly explo explode exploit " +
	"exploration explore explored explorer exploring explos explosion explosive exponent export exported " +
	"exports expose exposed exposure express expressed expressing expression expressions extend extended " +
	"extending extends extension extensions extensive extent exterior extern external extra extract " +
	"extracted extraction extraordinary extras extrem extreme extremely fabric fabulous facebook faced " +
	"faces facial facilit facilitate facilities facility facing faction factor factories factors factory " +
	"facts faculty failed failing fails failure failures faint faire fairly faith faithful fallback " +
	"fallen falling falls false familiar families family famous fancy fantastic fantasy farmer farmers " +
	"farming farms fascinating fashion faster fastest fatal father fatigue fault favor favorable favorite " +
	"favorites favour favourite fclose feared fears feature featured features featuring february fecha " +
	"feder federal federation feedback feeding feeds feeling feelings feels fellow felony female females " +
	"femin feminist femme femmes fence ferguson fertil festival fetch fever fewer fiber ficken fiction " +
	"field fields fifteen fifth fifty fight fighter fighters fighting fights figure figured figures filed " +
	"filename filepath files filesystem filing fille filled filling filming filmm films filter filtered " +
	"filtering filters final finale finally finance financial financially financing finden finding " +
	"findings finds fines finest finger fingers finish finished finishes finishing finite finland firearm " +
	"firearms firebase fired firefight firefox fires firing firmly firms firmware first fiscal fisher " +
	"fishing fitness fitted fitting fixed fixes fixing fixture fixtures flags flame flames flash flask " +
	"flavor flavors fleet flesh flexibility flexible flick flies flight flights float floating flood " +
	"flooding floor flooring floors florida flour flower flowers flowing flows fluct fluid flush flying " +
	"fname focus focused focuses focusing folder folders folks follow followed followers following " +
	"follows fonction fonts fontsize foods footage football footer fopen forall forbidden force forced " +
	"forces forcing foreach forecast foreign forest forests forever forex forget forgot forgotten forma " +
	"formal formally format formation formats formatted formatter formatting formed former formerly " +
	"forming forms formula forth fortune forty forum forums forward fossil foster fotos fought found " +
	"foundation founded founder founding fourth fprintf fract fraction fragment fragments frame frames " +
	"framework franc franca france franch franchise francis francisco frank franklin fraud frauen freak " +
	"freder freed freedom freel freely freeze french frequ frequencies frequency frequent frequently " +
	"fresh friction friday fridge fried friend friendly friends friendship fright front frozen fruit " +
	"fruits frustr frustrated frustrating frustration fucked fucking fulfill fully funcion function " +
	"functional functionality functioning functions fundament fundamental funded funding fundra " +
	"fundraising funds funeral funny furnished furniture further furthermore fusion future futures " +
	"gabriel gained gaining gains galaxy gallery gambling gameplay gamers games gaming gamma garage " +
	"garbage garcia garden gardens garlic gates gateway gather gathered gathering gauge gchar gegen geile " +
	"gender gener general generally generate generated generates generating generation generations " +
	"generator generic generous genes genetic genius genome genre genres gentle gently genuine genuinely " +
	"geometry georg george georgia german germany gesch gesture getattr getter getting getty ghost giant " +
	"giants gifts girlfriend girls github given gives giving glance glass glasses global globally globals " +
	"globe glory gloss gloves glucose gluten glyph glyphicon goals going golden gonna goodness goods " +
	"google gordon gorgeous gotta gotten gover govern governance governed governing government " +
	"governments governor grabbed grace grade grades gradient gradu gradually graduate graduated " +
	"graduates graduation graham grain grammar grams grand grande grandes grandfather grandmother granite " +
	"grant granted grants graph graphic graphics grasp grass grateful gratis gratuit grave gravity great " +
	"greater greatest greatly greece greek green greenhouse grief griff grinding grocery gross ground " +
	"grounds group groups growing grown grows growth grupo guarante guarantee guaranteed guarantees guard " +
	"guardian guards guess guest guests guidance guide guided guidelines guides guild guilt guilty guitar " +
	"haben habit habitat habits hacer hacking halloween hamilton hammer hampshire handed handful handle " +
	"handled handler handlers handles handling hands handy hanging happen happened happening happens " +
	"happily happiness happy harass harassment hardcore harder hardest hardly hardware harmful harmon " +
	"harmony harness harper harris harrison harry harsh harvard harvest harvey hasattr hasta hated hatred " +
	"haven having hawai hawaii hazard headed header headers heading headline headlines headquarters heads " +
	"healing health healthcare healthier healthy heard hearing heart hearts heated heating heaven heavily " +
	"heavy hebrew heeft heels height heights helicopt helicopter hello helmet helped helper helpers " +
	"helpful helping helps hence henry hereby herein heritage heroes herself hesitate heter hidden hiding " +
	"hierarchy higher highest highlight highlighted highlighting highlights highly highway hiking hilar " +
	"hillary hills himself hindu hints hired hiring histogram histor historic historical historically " +
	"history hitler hitting hobby hockey holder holders holding holds holes holiday holidays holland " +
	"hollywood homeless homemade homepage homes homework homic homosex honda honest honestly honey honor " +
	"honored honour hooks hoped hopeful hopefully hopes hoping horas horizon horizontal hormone horny " +
	"horrible horror horse horses hospital hospitals hosted hostile hosting hostname hosts hotel hotels " +
	"hottest hours house household households houses housing houston hover howard however " +
	"htmlspecialchars https hudson human humanitarian humanity humans humble humidity humor hundred " +
	"hundreds hunger hungry hunter hunting hurricane husband hybrid hydro hydrogen hyper hypothesis " +
	"iceland iconic icons ideal ideas ident identical identification identified identifier identifies " +
	"identify identifying identity ideology ignor ignore ignored ignoring illeg illegal illegally " +
	"illinois illness illuminate illustr illustrated image images imagination imagine imagined imaging " +
	"immedi immediate immediately immense immer immigr immigrant immigrants immigration immun immune " +
	"impact impacts impair imper imperial implement implementation implementations implemented " +
	"implementing implements implications implicit implied implies implode imply import importance " +
	"important importante importantly imported imports impose imposed impossible impress impressed " +
	"impression impressive imprison impro improve improved improvement improvements improves improving " +
	"inability inactive inappropriate inaug inbox incent incentive incentives inches incidence incident " +
	"incidents includ include included includes including inclusion inclusive income incoming incomplete " +
	"incon incons incontri incor incorpor incorporate incorporated incorrect incre increase increased " +
	"increases increasing increasingly incred incredible incredibly increment indeed indef indent " +
	"independ independence independent independently index indexed indexes india indian indiana indians " +
	"indic indicate indicated indicates indicating indication indicator indicators indices indict " +
	"indigenous indirect indiv individ individual individually individuals indones indonesia indoor " +
	"induced induction indul indust industrial industries industry inequality inevitable inexp infamous " +
	"infant infect infected infection infections infer inferior infinite inflamm inflammation inflater " +
	"inflation influ influence influenced influences influential inform information informative informed " +
	"infrastructure ingredient ingredients inhab inhabit inher inherent inherit inherited inhib initi " +
	"initial initialization initialize initialized initializes initially initiate initiated initiative " +
	"initiatives inject injectable injection injured injuries injury inline inner innings innoc innocent " +
	"innov innovation innovative inode input inputs inquiry insane insect insert inserted inserting " +
	"insertion inside insight insights insist insisted inspect inspection inspir inspiration inspire " +
	"inspired inspiring instagram install installation installed installing instance instanceof instances " +
	"instant instantiate instantly instead instinct instit institute institution institutional " +
	"institutions instr instruct instruction instructions instructor instrument instruments insufficient " +
	"insulin insult insurance intact intake integ integer integers integr integral integrate integrated " +
	"integration integrity intel intellect intellectual intelligence intelligent intend intended intens " +
	"intense intensity intensive intent intention intentionally intentions inter interact interaction " +
	"interactions interactive intercept interest interested interesting interests interf interface " +
	"interfaces interference interior intermediate intern internal internally international " +
	"internationally internet interpol interpolation interpre interpret interpretation interpreted " +
	"interrog interrupt interrupted intersect intersection interval intervals interven intervention " +
	"interventions interview interviewed interviews intest intim intimate intimid intrig intro introdu " +
	"introduce introduced introducing introduction intros intval invalid invasion invent invented " +
	"invention inventory inverse invest invested investig investigate investigated investigating " +
	"investigation investigations investigators investing investment investments investor investors " +
	"invisible invitation invite invited invocation invoice invoke invoked invol involve involved " +
	"involvement involves involving ipsum iranian iraqi ireland irish irres irrit isinstance islam " +
	"islamic island islands isolated isolation israel israeli isset issue issued issues italian italy " +
	"items iterable iterate iteration iterations iterator itself jacket jackson jacob james jamie january " +
	"japan japanese jason javafx javascript javax jeans jefferson jennifer jenter jeremy jerry jersey " +
	"jerusalem jessica jesus jetzt jeune jewelry jewish jimmy johnny johnson joined joining joins joint " +
	"joints jokes jonathan jones jordan joseph journal journalism journalist journalists journey jsonify " +
	"judge judges judgment judicial juice julian jumped jumping jumps junior jurisdiction justice " +
	"justified justify justin kansas karen kavanaugh keeping keeps keine keith kelly kennedy kentucky " +
	"kenya keras kernel kevin keyboard keyword keywords kicked kicks kidney killed killer killing kills " +
	"kinda kindle kinds kingdom kings kitchen klass knees knife knight knock knocked knowing knowledge " +
	"known knows korea korean kosten kostenlos kotlin kotlinx krist kwargs label labeled labels labor " +
	"laboratory labour lacking lacks ladder ladies lambda landed landing landmark lands landsc landscape " +
	"lanes language languages laptop large largely larger largest larry laser lasted lasting lateinit " +
	"lately later latest latin latitude latter laugh laughed laughing launch launched launches launching " +
	"laundry laura laure lawmakers lawrence lawsuit lawyer lawyers layer layers laying layout leader " +
	"leaders leadership leading leads league leagues leaked leaks learn learned learning lease least " +
	"leather leave leaves leaving leban lecture legacy legal legally legend legendary legis legisl " +
	"legislation legislative legislature legit legitimate lemma lemon length lengths lengthy lenses " +
	"lesbian lesser lesson lessons letter letters letting level levels lever leverage lewis liability " +
	"liable liber liberal libert liberty libraries library libya licence license licensed licenses " +
	"licensing lifestyle lifetime lifted lifting light lighter lighting lightly lightning lights " +
	"lightweight ligne liked likelihood likely likes likewise limit limitation limitations limited " +
	"limiting limits lincoln linda linear lined lines lineup lingu lining linked linking links linux " +
	"lions liquid lista liste listed listen listened listener listeners listening listing listings lists " +
	"liter literal literally literary literature litigation litter little lived liver liverpool lives " +
	"living loaded loader loading loads loans lobby local locale locally locals locate located location " +
	"locations locked locker locking locks logged logger logging logic logical login logout lombok london " +
	"longer longest longitude longtime looked looking looks lookup loops loose loses losing losses " +
	"lottery louis louisiana lounge loved lovely lover lovers loves loving lower lowered lowest loyal " +
	"loyalty lucas lucky lugar lunch luther luxury lying lynch lyrics machen machine machinery machines " +
	"macro macros madison madrid magazine magazines magento magic magical magnet magnetic magnitude " +
	"mailing maine mainly mainstream maint maintain maintained maintaining maintains maintenance major " +
	"majority maker makers makes makeup making malays malaysia males malicious malloc manage managed " +
	"management manager managers manages managing manchester mandate mandatory maneu manga manhattan " +
	"manifest manip manipulate manipulation manner manual manually manufact manufacture manufactured " +
	"manufacturer manufacturers manufacturing manus mapped mapper mapping march marco marcus margaret " +
	"margin marginal margins maria marie marijuana marine mario marked marker markers market marketable " +
	"marketing marketplace markets marking marks marriage married marry marsh marshal marshall martial " +
	"martin marvel maryland mascul masks mason massachusetts massage massasje masses massive master " +
	"masters masturb match matched matcher matches matching material materials mathematic mathematical " +
	"mathematics mathf matplotlib matrices matrix matter matters matthew mattress mature maxim maximize " +
	"maximum maxlength maybe mayor meals meaning meaningful means meant meantime meanwhile measure " +
	"measured measurement measurements measures measuring mechan mechanical mechanics mechanism " +
	"mechanisms medal media median medic medicaid medical medicare medication medications medicine " +
	"medicines meditation mediterr mediterranean medium meeting meetings meets meille mejor melbourne " +
	"member members membership membr membrane memcpy memor memorable memorial memories memory memset " +
	"menos mensaje mental mentally mention mentioned mentions mentor menus mercedes merch merchandise " +
	"merchant mercy merely merge merged merit message messages messaging metab metabol metabolism " +
	"metadata metal metals metaph meter meters method methodology methods metres metric metrics metro " +
	"mexican mexico miami michael michelle michigan micro microsoft middle middleware midfield midnight " +
	"midst might migrants migration migrations milan miles milit militants military miller million " +
	"millions milliseconds mills milwaukee minds mineral minerals mines minim minimal minimize minimum " +
	"mining minister ministers ministry minnesota minor minority minus minute minutes mirror miscon " +
	"misleading mismatch mismo missed missile missiles missing mission missions mississippi missouri " +
	"mistake mistaken mistakes misunder mitch mitchell mitig mixed mixer mixing mixture mkdir mobil " +
	"mobile mobility modal model modeling modelo models moder moderate modern modes modest modification " +
	"modifications modified modifier modifiers modify module modules moist moisture molec molecular " +
	"molecules moment momento moments momentum monday monde monetary money mongo mongoose monitor " +
	"monitoring monitors monkey monster monsters montana month monthly months montreal monument moore " +
	"moral moreover morgan mormon morning morph morris mortality mortgage moscow mostly mother mothers " +
	"motion motiv motivated motivation motor motorcycle motors mount mountain mountains mounted mounting " +
	"mouse mouth moved movement movements moves movie movies moving mozilla mueller muhammad muito " +
	"mujeres multi multip multiplayer multiple multiplier multiply mumbai mundo municip municipal murder " +
	"murdered murphy murray muscle muscles museum music musical musician musicians muslim muslims mutable " +
	"mutation mutations mutex mutual myself mysql mysqli myster mysterious mystery naked named namely " +
	"nameof names namespace naming nancy narrative narrow nashville nasty nathan nation national nations " +
	"nationwide native natur natural naturally nature navbar navig navigate navigation navigator nearby " +
	"nearest nearly nebraska neces necess necessarily necessary necessity needed needing needle needs " +
	"negative neglect neglig negot negotiate negotiations neighb neighbor neighborhood neighborhoods " +
	"neighbors neighbour neighbours neither nella nelson nerve nervous nested netflix netherlands network " +
	"networking networks neuken neural neuro neurons neutral nevada never nevertheless newer newest newly " +
	"newsletter newsletters newsp newspaper newspapers newton newtonsoft nicely niche nicht nickname " +
	"niger nigeria night nightmare nights nintendo noble nobody nodded nodes noexcept noise nokia nombre " +
	"nomin nominated nomination nomine nominee nonatomic nonetheless nonprofit normal normalize " +
	"normalized normally north northern norway notable notably notebook noted notes nothing notice " +
	"noticed notices notification notifications notified notify noting notion notre nouvel novel novels " +
	"november nowhere nucle nuclear nuest nueva nuevo nullable nullptr number numbers numer numeric " +
	"numerical numero numerous numpy nurse nurses nursing nutrients nutrition oakland obama obamacare " +
	"obesity object objective objectives objects objet objeto oblig obligation obligations observ " +
	"observable observation observations observe observed observer observers obstacle obstacles obtain " +
	"obtained obtaining obvious obviously occas occasion occasional occasionally occasions occup " +
	"occupation occupied occur occured occurred occurrence occurring occurs ocean october offence offense " +
	"offensive offer offered offering offerings offers offic office officer officers offices official " +
	"officially officials offline offset offsets offshore often oklahoma older oldest olive oliver olymp " +
	"olympic olympics omega onclick onder ongoing onion online ontario opacity opcode opened opener " +
	"opening openly opens opera operand operate operated operates operating operation operational " +
	"operations operator operators opinion opinions oppon opponent opponents opport opportunities " +
	"opportunity oppos oppose opposed opposing opposite opposition optical optim optimal optimistic " +
	"optimization optimize optimized optimizer option optional options oracle orange orbit orden order " +
	"ordered ordering orders ordinary oregon organ organic organis organisation organisations organised " +
	"organiz organization organizations organize organized organizing organs orgasm orient orientation " +
	"origin original originally origins orlando orleans orphan oscar other others otherwise otros ottawa " +
	"ought ourselves outbreak outcome outcomes outdoor outdoors outer outfile outfit outgoing outlet " +
	"outlets outline outlined outlook output outputs outrage outside outstanding overall overcome " +
	"overflow overhead overl overlap overlay overlook overly overnight override overrides overs overse " +
	"overseas oversight overtime overview overwhel overwhelming overwrite owned owner owners ownership " +
	"oxford oxygen pacific package packages packaging packed packet packets packing packs padding pages " +
	"pagination painful paint painted painter painting paintings paired pairs pakistan palace palest " +
	"palestin palestinian palestinians palette pandas pandemic panel panels panic pants paper papers " +
	"parad parade paragraph parallel param parameter parameters params paras parcel paren parent parents " +
	"paris parker parking parks parliament parse parsed parser parsing parte partial partially partic " +
	"particip participant participants participate participated participating participation particle " +
	"particles particular particularly parties partir partition partly partner partners partnership parts " +
	"party passage passe passed passenger passengers passes passing passion passionate passive passport " +
	"password passwords pasta paste patch patches patent paths pathway patience patient patients patio " +
	"patri patrick patriots patrol patron pattern patterns paulo pause paused paying payload payment " +
	"payments peace peaceful pearl pedest peers penalties penalty pending penet penis pennsylvania " +
	"pension pentagon pentru people peoples pepper perceived percent percentage perception perfect " +
	"perfection perfectly perform performance performances performed performing performs perhaps period " +
	"periodic periods peripheral perman permanent permanently permet permission permissions permit " +
	"permits permitted perpet perpetr perry persec persist persistent person persona personal personality " +
	"personalized personally personas personnel persons perspective perspectives persu peter peters " +
	"petite petition pharm pharmac pharmaceutical pharmacy phase phases phenomen phenomenon philadelphia " +
	"philip philipp philippines phill phillips philosoph philosophy phoenix phone phones phosph photo " +
	"photograph photographer photographs photography photos phrase phrases physical physically physician " +
	"physicians physics piano picked picker picking pickle picks pickup picture pictures piece pieces " +
	"pierre piger pills pilot pilots pinterest pione pipeline pipes pitch pittsburgh pivot pixel pixels " +
	"pizza place placed placeholder placement places placing plain plaint plane planes planet planets " +
	"planned planning plans plant planted plants plasma plastic plate plates platform platforms playback " +
	"played player players playing playlist playoff playoffs plays pleasant please pleased pleasure " +
	"pledge plenty plots plugin plugins plural pocket pockets podcast poder poetry point pointed pointer " +
	"pointers pointing points poison pokemon poker poland polar polic police policies policy polish polit " +
	"political politically politician politicians politics polling polls pollution polygon pools poorly " +
	"popul popular popularity populate populated population populations popup porno porque portable " +
	"portal porter portfolio portion portions portland portrait portray ports portug portugal posed poses " +
	"posit position positioned positioning positions positive possess possession possibilities " +
	"possibility possible possibly posted poster posters posting posts potato potatoes potent potential " +
	"potentially potter pound pounds poverty powder power powered powerful powers pract practical " +
	"practically practice practices practicing practition praise praised prayer prayers preced preceding " +
	"precio precious precip precis precise precisely precision predecess predicate predict predicted " +
	"prediction predictions predomin prefer preference preferences preferred prefix prefs pregn pregnancy " +
	"pregnant prejud prelim preliminary premier premiere premises premium prend prepar preparation " +
	"prepare prepared preparing prescribed prescription presence present presentation presentations " +
	"presented presenter presenting presents preserve preserved presidency president presidential press " +
	"pressed pressing pressure prest presum presumably pretend pretty preval prevalence prevent prevented " +
	"preventing prevention prevents preview previous previously price priced prices pricing pride priest " +
	"prima primarily primary prime primer primitive prince princess princip principal principle " +
	"principles print printed printer printf printing println prints prior priorities priority prison " +
	"prisoners privacy privat private privately prive privile privilege privileges prize prizes " +
	"probability probable probably probe proble problem problematic problems proced procedure procedures " +
	"proceed proceeding proceedings proceeds proces process processed processes processing processor " +
	"processors produ produce produced producer producers produces producing product production " +
	"productive productivity producto products profes profess profession professional professionals " +
	"professor profile profiles profit profitable profits profound program programa programme programmes " +
	"programming programs progress progression progressive prohib prohibited project projected projectile " +
	"projection projects prolong prominent promise promised promises promising promo promot promote " +
	"promoted promotes promoting promotion promotional promotions prompt prompted prone pronounced proof " +
	"propag propaganda proper properly properties property prophet proport proportion propos proposal " +
	"proposals propose proposed propri proprietary props prosec prosecution prosecutor prosecutors " +
	"prospect prospective prospects prosper prost prostit prostitu prostitutas protagon prote protect " +
	"protected protecting protection protections protective protects protein proteins protest protesters " +
	"protests proto protocol protocols prototype proud prove proved proven proves provid provide provided " +
	"provider providers provides providing provinc province provincial proving provision provisions " +
	"proximity proxy przez pseudo psych psychological psychology pthread public publication publications " +
	"publicly publish published publisher publishers publishing puede puerto pulled pulling pulls pulse " +
	"punch punct punish punishment purch purchase purchased purchases purchasing purely purple purpose " +
	"purposes pursuant pursue pursuing pursuit pushed pushing pussy putin putting puzzle pygame pytest " +
	"python quadr qualified qualify qualifying qualities quality quando quant quantities quantity quantum " +
	"quarry quarter quarterback quarters quaternion quebec queen queens queries query quest question " +
	"questioned questioning questions questo queue quick quicker quickly quiet quietly quite quote quoted " +
	"quotes rabbit races rachel racial racing racism racist radar radeon radiation radical radio radius " +
	"ragaz rails raise raised raises raising rally ranch random randomly range rangers ranges ranging " +
	"ranked ranking rankings ranks rapid rapidly rapport rarely rated rates rather rating ratings ratio " +
	"rational reach reached reaches reaching react reaction reactions reactor readable reader readers " +
	"readily reading readonly reads ready reagan realise realistic reality realiz realize realized really " +
	"realm reason reasonable reasonably reasoning reasons reass rebel rebels reboot rebuild recall " +
	"recalled receipt receive received receiver receives receiving recent recently recept reception " +
	"receptor recession recherche recip recipe recipes recipient recipients recogn recognised recognition " +
	"recognize recognized recom recomm recommend recommendation recommendations recommended recon reconc " +
	"record recorded recording recordings records recover recovered recovery recre recreated recreational " +
	"recru recruit recruiting recruitment rectangle recurs recursive recycling reddit redirect redis " +
	"redistrib redistribute redistribution redistributions reduce reduced reducer reduces reducing " +
	"reduction redund refer reference referenced references referendum referred referring refers refined " +
	"reflect reflected reflection reflects reflex reform reforms refresh refreshing refriger refuge " +
	"refugee refugees refund refuse refused refusing regard regarded regarding regardless regards regex " +
	"regime region regional regions regist register registered registering registers registr registration " +
	"registro registry regression regret regul regular regularly regulate regulated regulation " +
	"regulations regulatory rehab reign reinterpret reject rejected rejection relate related relates " +
	"relating relation relations relationship relationships relative relatively relatives relax relaxed " +
	"relaxing relay release released releases releasing relevant reliability reliable relief relies relig " +
	"religion religious reload reluct relying remain remainder remained remaining remains remark " +
	"remarkable remarks remed remember remembered remind reminded reminder reminds remot remote remotely " +
	"removal remove removed removes removing rename renamed rencont rencontre rencontres render rendered " +
	"renderer rendering renew renewable renewed renov renown renowned rental reopen repair repairs repeat " +
	"repeated repeatedly repet replace replaced replacement replacing replay replic replica replied " +
	"replies reply report reported reportedly reporter reporters reporting reports repos repository " +
	"represent representation representative representatives represented representing represents reprodu " +
	"reproduce reproduction republic republican republicans reputation request requested requesting " +
	"requests require required requirement requirements requires requiring rescue research researcher " +
	"researchers reserv reservation reserve reserved reserves reset resid residence resident residential " +
	"residents residual resign resil resist resistance resistant resize resolution resolve resolved " +
	"resolver reson resort resource resources respect respected respective respectively respir respond " +
	"responded respondents responding responds respons response responses responsibilities responsibility " +
	"responsible responsive restart restaur restaurant restaurants restoration restore restored restr " +
	"restrict restricted restriction restrictions result resultado resulted resulting results resume " +
	"retail retailer retailers retain retained retention retire retired retirement retreat retrie " +
	"retrieve retrieved retro retrofit retry return returned returning returns retval reuse reuters " +
	"reveal revealed revealing reveals revel reven revenge revenue revenues rever revers reverse reversed " +
	"review reviewed reviewing reviews revis revised revision revolution revolutionary reward rewards " +
	"rewrite rhetoric rhyth rhythm richard richmond rider riders rides ridge ridic ridiculous riding " +
	"rifle right rights rigid rings rises rising risks ritual rival rivals river rivers roads robert " +
	"roberts robin robinson robot robots robust rocket rocks rodrig roger rogers roles rolled roller " +
	"rolling rolls roman romance romantic romney ronald rookie rooms roots rosen rospy roster rotate " +
	"rotation rough roughly round rounded rounds route router routes routine routines routing royal " +
	"rubber ruled rules ruling rumors runnable runner runners running runtime rural rushed rushing " +
	"russell russia russian russians sacred sacrific sacrifice safari safeg safely safer safety saint " +
	"saints salad salaries salary sales salope sample samples sampling samsung samuel sanct sanctions " +
	"sanders sandwich sandy sanit santa sarah satellite satisf satisfaction satisfied satisfy satisfying " +
	"saturday sauce saudi saved saves saving savings saying scaffold scala scalar scale scaled scales " +
	"scaling scandal scanf scanner scanning scared scary scattered scenario scenarios scene scenes sched " +
	"schedule scheduled scheduler schedules scheduling schem schema scheme schemes scholar scholars " +
	"scholarship schon school schools science sciences scient scientific scientist scientists scipy scope " +
	"score scored scores scoring scotland scott scottish scram scrap scratch screaming screen screening " +
	"screens screenshot screw script scripts scroll scrolling scrut scrutiny sculpt sealed search " +
	"searched searches searching season seasonal seasons seating seats seattle second secondary seconds " +
	"secre secret secretary secrets section sections sector sectors secular secure secured securities " +
	"security seeds seeing seeking seeks seemed seemingly seems segment segments segue seine seized " +
	"selbst select selected selecting selection selections selector selenium seller sellers selling sells " +
	"semester sempre senate senator sender sending sends senior seniors sensation sense senses sensible " +
	"sensitive sensitivity sensor sensors sentence sentenced sentences sentiment separ separate separated " +
	"separately separation separator september sequel sequelize sequence sequences serge serial " +
	"serializable serialize serialized serializer serializers serie series serif serious seriously serve " +
	"served server servers serves service services serving servlet session sessions sesso setting " +
	"settings settle settled settlement setup seven sevent seventh sever several severe severely severity " +
	"sexual sexuality sexually shade shader shades shadow shadows shaft shake shaking shall shallow shame " +
	"shanghai shape shaped shapes share shared shares sharing sharp sheep sheer sheet sheets shelf shell " +
	"shelter shelves shemale sheriff shield shift shifted shifting shifts shine shipped shipping ships " +
	"shirt shirts shock shocked shocking shoes shook shoot shooter shooting shopping shops shore short " +
	"shortage shortcut shorter shortly shorts shots should shoulder shoulders shouldn showcase showed " +
	"shower showing shown shows shrink shuffle shutdown shutil siblings sidebar sides sidew sierra sight " +
	"sigma signal signals signature signatures signed signific significance significant significantly " +
	"signing signs silence silent silicon silly silver similar similarity similarly simon simpl simple " +
	"simpler simply simpson simulate simulation simult simultaneously since singapore singer singh " +
	"singing single singles singleton singular sinon sistema sister sisters sites sitting situated " +
	"situation situations sixth sized sizeof sizes skeleton skept sketch skill skilled skills skipped " +
	"skirt sklearn skull slash slave slavery slaves sleep sleeping sleeve slice slices slide slider " +
	"slides sliding slight slightly slope slots slower slowly small smaller smallest smart smartphone " +
	"smartphones smell smile smiled smiling smith smoke smoking smooth smoothly snake snapshot snprintf " +
	"sobre soccer social societies society sockaddr socket sodium software solar soldier soldiers solely " +
	"solic solid solution solutions solve solved solver solving somebody somehow someone something " +
	"sometime sometimes somew somewhat somewhere songs sooner sophistic sophisticated sorry sorted " +
	"sorting sorts sought souls sound sounded sounds source sources south southeast southern sovere " +
	"soviet space spaces spacing spacious spain spanish spare spark sparse spatial spawn speak speaker " +
	"speakers speaking speaks special specialist specialists specialized specially specialty species " +
	"specific specifically specification specifications specified specifies specify specifying specs " +
	"spect spectacular spectrum speculation speech speed speeds spell spells spencer spend spending " +
	"spends spent sphere spider spiel spike spill spine spinner spinning spirit spirits spiritual spite " +
	"splash split spoke spoken spokes spokesman spokesperson spokeswoman spons sponsor sponsored sponsors " +
	"spont sport sporting sports spotlight spots spotted spouse spraw spray spread spreading spring " +
	"springs sprint sprintf sprite sqlite squad square squares squeeze stabil stability stable stack " +
	"stadium staff stage stages stainless stair stairs stake stakeholders stamp stance stand standard " +
	"standards standing stands stanford stanley staring stark stars start started starter starting starts " +
	"startup state stated stateless statement statements states static stating station stations statist " +
	"statistical statistics stats statue status statute stayed staying stays stderr stdin stdout stead " +
	"steady steal stealing steam steel steep steering stein stephan stephen stepped stepping steps stere " +
	"stereo steve steven stevens stewart stick sticking sticks sticky stiff still stimulus stitch stock " +
	"stocks stolen stomach stone stones stood stopped stopping stops storage store stored stores stories " +
	"storing storm story straight straightforward strain strange stranger strap strateg strategic " +
	"strategies strategy straw strcat strcmp strconv strcpy streak stream streaming streams street " +
	"streets strength strengthen strengths stress stressed stret stretch strict strictly stride strides " +
	"strike strikes striking string strings strip stripped strips strive strlen stroke strong stronger " +
	"strongest strongly strtol strtolower strtotime struck struct structural structure structured " +
	"structures strugg struggle struggled struggles struggling stuck student students studied studies " +
	"studio studios study studying stuff stunning stupid style styled styles stylish subclass subject " +
	"subjected subjects sublic sublicense submission submissions submit submitted submitting subprocess " +
	"subscri subscribe subscriber subscribers subscription subsection subsequ subsequent subsequently " +
	"subset subsid subsidi subst substance substances substant substantial substantially substit " +
	"substitute substr substring subtitle subtle subtract subur succeed succeeded success successful " +
	"successfully successor sudden suddenly suffer suffered suffering sufficient suffix sugar suggest " +
	"suggested suggesting suggestion suggestions suggests suicide suitable suite suited suits summar " +
	"summary summer summit summon sunday super superb superior superman supern superv supervision " +
	"supervisor supplement supplements supplied supplier suppliers supplies supply support supported " +
	"supporter supporters supporting supportive supports suppose supposed supposedly suppress suprem " +
	"supreme surely surface surfaces surge surgery surgical surpr surprise surprised surprising " +
	"surprisingly surre surrender surround surrounded surrounding surve surveillance survey surveys " +
	"surviv survival survive survived survivors susan suscept suspect suspected suspects suspend " +
	"suspended suspension suspicion suspicious sustain sustainable sustained sweat sweden swedish sweep " +
	"sweet swift swimming swing swinger swipe swiss switch switched switches switching switzerland sword " +
	"sydney symbol symbolic symbols symfony sympath sympt symptoms synchron synchronized syndrome syntax " +
	"synthesis synthetic syria syrian system systematic systems tabindex table tables tablesp tablet " +
	"tablets tackle tactic tactical tactics tagged taiwan taken takes taking talent talented talents " +
	"tales talked talking talks tampa tanks tanto tantra target targeted targeting targets tasks taste " +
	"tastes tasty tatto tattoo taught taxes taxpayer taxpayers taylor teach teacher teachers teaches " +
	"teaching teammates teams tears techn technical technically technique techniques technological " +
	"technologies technology teenage teenager teenagers teens teeth telephone telerik television telling " +
	"tells temper temperature temperatures template templates temple tempo tempor temporal temporarily " +
	"temporary temps tempt tenant tendency tender tends tener tennessee tennis tension tensions tensor " +
	"tensorflow termin terminal terminate terminated termination terms terrain terrible territories " +
	"territory terror terrorism terrorist terrorists terry tesla tested tester testified testim testimony " +
	"testing tests texas texto texts texture textures thailand thank thanks thanksgiving theater theatre " +
	"theft their theme themes thems themselves theoret theoretical theories theory therap therapeutic " +
	"therapy there thereby therefore thereof therm thermal these thesis theta thick thickness thigh thing " +
	"things think thinking thinks third thirty thomas thompson thorough thoroughly those though thought " +
	"thoughts thous thousand thousands thread threading threads threat threatened threatening threats " +
	"three threshold threw thrilled throat through throughout throw throwable throwing thrown throws " +
	"thrust thumb thumbnail thunder thursday ticket tickets ticks tidak tiempo tiene tiger tight tiles " +
	"timed timeline timely timeout timer times timestamp timezone timing tired tires tissue tissues titan " +
	"title titled titles toast tobacco todas today todos together toggle toilet token tokens tokyo toler " +
	"tolerance tomorrow tongue tonight toolbar tools tooltip tooth topic topics torch toronto torrent " +
	"torture total totally touch touchdown touched touches touching tough tourism tourist tourists " +
	"tournament tours toward towards tower towns toxic toyota trabaj trabajo trabal trace traces track " +
	"tracked tracker tracking tracks tradable trade traded trademark traders trades trading tradition " +
	"traditional traditionally traditions traff traffic trafficking traged tragedy tragic trail trailer " +
	"trailing trails train trained trainer training trains trait traits trajectory trans transaction " +
	"transactions transcript transf transfer transferred transfers transform transformation transformed " +
	"transforms transgender transit transition transitions transl translate translated translation " +
	"translations transmission transmit transmitted transparency transparent transport transportation " +
	"trapped trash trauma travel traveled traveling travelling travels travers traverse treasure treasury " +
	"treat treated treating treatment treatments treats treaty trees tremend tremendous trend trends " +
	"trial trials triangle tribe tribes tribute trick tricks tricky tried tries trigger triggered " +
	"triggers trillion triple trips triumph trivial troops trophy tropical troub trouble troubles truck " +
	"trucks truly trump trunk trust trusted truth trying tubes tuesday tuition tumor tuned tunnel tuple " +
	"turkey turkish turned turner turning turns turtle tutor tutorial tweet tweeted tweets twelve twenty " +
	"twice twist twisted twitter tyler typed typedef typename typeof types typical typically typing " +
	"typings ubuntu uintptr ukrain ukraine ukrainian ultimate ultimately ultra unable unavailable uncert " +
	"uncertain uncertainty unchanged uncle unclear uncomfort uncomfortable uncon undef undefined under " +
	"undergo underground underlying underneath unders underst understand understanding understands " +
	"understood undert underway undoubtedly unemployment unexpected unfair unfold unfolding unfortunate " +
	"unfortunately unicode uniform unint union unions uniqu unique united units unittest unity univers " +
	"universal universe universities university unknown unlaw unless unlike unlikely unlimited unlock " +
	"unlocked unnecessary unpack unprecedented unsafe unser unset unsigned unsupported unter until untuk " +
	"unused unusual unveiled unwanted upcoming update updated updates updating upgrade upgraded upgrades " +
	"upload uploaded upper upset upside urban urged urgent urllib usage useful useless userid username " +
	"users using usize usual usually usuario utilities utility utiliz utilize utilized utilizing utils " +
	"utter utterly vacation vaccine vacuum vagina valentine valid validate validated validates validation " +
	"validator validators validity valign valley valor valores valuable value valued values valve " +
	"vancouver vanilla vapor varchar variable variables variance variant variants variation variations " +
	"varied varies varieties variety various varying vault vector vectors vegan vegas veget vegetable " +
	"vegetables vehicle vehicles velocity vendor vendors venez venezuela venture venue venues verbal " +
	"verbose verdict verification verified verify vermont versatile verse version versions versus vertex " +
	"vertical vertices vessel vessels veter veteran veterans viable viagra vibrant victim victims victor " +
	"victoria victory video videos vietnam viewed viewer viewers viewing viewport views vigil villa " +
	"village villages ville vincent vintage vinyl violated violation violations violence violent viral " +
	"virgin virginia virtual virtually virtue virus visibility visible vision visit visited visiting " +
	"visitor visitors visits vista visual vital vitamin vladimir vocab vocabulary vocal voice voices " +
	"volatile volcan voltage volume volumes volunt voluntary volunte volunteer volunteers voted voter " +
	"voters votes voting votre vrouw vrouwen vulner vulnerability vulnerable wages waist waited waiting " +
	"wales walked walker walking walks wallace wallet walls walmart walter wanna wanted wanting wants " +
	"warehouse warfare warming warned warner warning warnings warrant warranty warren warrior warriors " +
	"washed washing washington waste wasted watch watched watches watching water waters watson waves " +
	"wayne weaken weakness wealth wealthy weapon weapons wearing wears weather webcam webpack website " +
	"websites wedding wednesday weekend weekends weekly weeks weigh weight weighted weights weird weiter " +
	"welcome welcomed welcoming welfare wellness wells werden weren western whatever whats whatsoever " +
	"wheat wheel wheels whenever where whereas wherever whether which while whilst whisper white whites " +
	"whitespace whoever whole wholes wholesale whose widely wider wides widespread widget widgets width " +
	"wieder wikipedia wildlife william williams willing willingness wilson window windows winds wings " +
	"winner winners winning winter wireless wires wiring wisconsin wisdom wished wishes witch withdraw " +
	"withdrawal within without witness witnessed witnesses wives wizard woman women wonder wondered " +
	"wonderful wondering wooden woods worden words worked worker workers workflow workforce working " +
	"workout workplace works worksheet workshop workshops workspace world worlds worldwide worried " +
	"worries worry worse worship worst worth worthy would wouldn wound wounded wounds wrapped wrapper " +
	"wreck wrest wrestling wright wrist write writer writers writes writing written wrong wrote wurde " +
	"xmlns xrange yahoo yards years yellow yemen yesterday yield yields young younger youngest yours " +
	"yourself youth youtube zealand zeros zhang zombie zones "

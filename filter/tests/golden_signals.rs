//! Golden tests: the signals every annotator writes (language, words, PII counts, safety,
//! heuristic signals) for short documents in eight languages are pinned in
//! `tests/golden/<lang>.json`. A change of any signal shows up as a reviewed diff; to accept
//! one, rerun with `TRAWL_UPDATE_GOLDEN=1` and commit the files.

use trawl_core::{Document, Map};
use trawl_filter::{heuristics, pii, safety, Annotate, FilterConfig};

const DOCS: &[(&str, &str)] = &[
    ("eng", "The harbour town woke slowly on Monday as the first ferries crossed the grey water.\nFishermen unloaded crates of mackerel and cod, and the market stalls opened one by one along the quay.\n\nContact the harbour office at harbour.office@example.org or +44 20 7946 0958.\nLocal officials say the new breakwater has already reduced the damage caused by winter storms."),
    ("deu", "Die kleine Stadt am Fluss hat in diesem Jahr ihr neues Schwimmbad eröffnet.\nNach drei Jahren Bauzeit können Familien, Schulklassen und Vereine nun wieder das ganze Jahr über schwimmen.\n\nDer Bürgermeister betonte, dass das Bad deutlich weniger Energie verbraucht als das alte Gebäude.\nSpenden bitte an IBAN DE89 3704 0044 0532 0130 00."),
    ("fra", "Le petit village de montagne accueille chaque été des milliers de randonneurs venus découvrir ses sentiers et ses lacs.\nLes habitants ont restauré l'ancienne fromagerie, qui propose désormais des visites et des ateliers.\n\nLa municipalité a décidé de rénover la place du marché afin de la rendre plus accueillante pour les piétons."),
    ("spa", "La biblioteca municipal ha ampliado su horario de apertura por las tardes después de una encuesta.\nMuchos estudiantes y trabajadores no podían visitarla durante el día.\n\nTambién prestará ordenadores portátiles a las personas que no los tienen en casa, un servicio que fue muy popular."),
    ("jpn", "港町の朝はゆっくりと始まり、最初のフェリーが灰色の海を渡った。\n漁師たちはサバやタラの箱を降ろし、市場の屋台が一つずつ開いていった。\n\n地元の当局者によると、昨年の春に完成した新しい防波堤は、冬の嵐による被害をすでに減らしている。"),
    ("cmn", "港口小镇在星期一慢慢苏醒，第一批渡轮穿过灰色的海水。\n渔民们卸下一箱箱鲭鱼和鳕鱼，市场的摊位沿着码头一个接一个地开张。\n\n当地官员表示，去年春天完工的新防波堤已经减少了冬季风暴造成的损失。"),
    ("ara", "استيقظت المدينة الساحلية ببطء يوم الاثنين بينما عبرت العبارات الأولى المياه الرمادية.\nأفرغ الصيادون صناديق السمك وفتحت أكشاك السوق واحدا تلو الآخر على طول الرصيف.\n\nيقول المسؤولون المحليون إن كاسر الأمواج الجديد قلل بالفعل من الأضرار التي تسببها عواصف الشتاء."),
    ("rus", "Портовый город медленно просыпался в понедельник, когда первые паромы пересекали серую воду.\nРыбаки выгружали ящики со скумбрией и треской, а рыночные прилавки открывались один за другим вдоль набережной.\n\nМестные власти говорят, что новый волнорез уже уменьшил ущерб от зимних штормов."),
];

#[test]
fn signals_are_pinned_in_eight_languages() {
    let cfg = FilterConfig::default();
    let annotate = Annotate::default();
    let pii = pii::Pii::new(cfg.pii.clone());
    let safety = safety::Safety::new(&cfg.safety).unwrap();
    let dir = std::path::PathBuf::from(
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"),
    )
    .join("tests/golden");
    let update = std::env::var_os("TRAWL_UPDATE_GOLDEN").is_some();
    for (lang, text) in DOCS {
        let mut d = Document::new(format!("https://{lang}.example/a"), *text);
        annotate.map(&mut d).unwrap();
        pii.map(&mut d).unwrap();
        safety.map(&mut d).unwrap();
        heuristics::Signals.map(&mut d).unwrap();
        assert_eq!(
            d.attrs["lang"]["code"], *lang,
            "language of the {lang} document: {}",
            d.attrs["lang"]
        );
        let got = serde_json::json!({ "attrs": d.attrs, "text": d.text });
        let file = dir.join(format!("{lang}.json"));
        if update {
            std::fs::write(&file, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
            continue;
        }
        let want: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap_or_else(|_| {
                panic!("{} missing; run with TRAWL_UPDATE_GOLDEN=1", file.display())
            }))
            .unwrap();
        assert_eq!(
            got, want,
            "{lang}: signals changed (TRAWL_UPDATE_GOLDEN=1 to accept)"
        );
    }
}

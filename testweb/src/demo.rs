//! The bundled demo web: a handful of sites in several languages, with boilerplate, images,
//! robots.txt opt-outs for both product tokens, a duplicate page, redirects, a dead link, a
//! slow page and a host whose robots.txt fails.
//!
//! | site   | what it exercises |
//! |--------|-------------------|
//! | news   | English articles with navigation, footer and figures; `/private/` disallowed for all; `/no-train/` disallowed for the training token; one article sends `X-Robots-Tag: noai` |
//! | blog   | French and German posts (one with `<meta name="robots" content="noindex">`); one post copies a news article verbatim (exact dedup) |
//! | wiki   | Spanish and English pages with lists and tables, a redirect, a 404 and a slow page |
//! | shop   | `Disallow: /` for everyone: nothing may be fetched |
//! | broken | robots.txt answers 503: the whole host is treated as disallowed |
//! | photos | galleries for the captions stage: good figures, a placeholder alt, a page with `<meta name="robots" content="noimageai">`, a near-duplicate of another page's photo |
//! | cdn    | the galleries' images: photos, a tracking pixel, a truncated JPEG, a decompression bomb, an oversized file, an image under `Disallow`, one under a training-token `Disallow`, one sent with `X-Robots-Tag: noimageai` |

use std::time::Duration;

use crate::{Response, Site};

const EN: &[&str] = &[
    "The harbour town woke slowly on Monday as the first ferries crossed the grey water. Fishermen who had been out since four o'clock unloaded crates of mackerel and cod, and the market stalls opened one by one along the quay. Local officials say the new breakwater, finished last spring, has already reduced the damage caused by winter storms.",
    "Engineers at the regional water authority have begun replacing pipes that were laid more than a century ago. The work will take three years and cost an estimated forty million euros. Residents should expect short interruptions to their supply, which will be announced at least two days in advance on the authority's website and in the local press.",
    "A small bookshop on the corner of Mill Street celebrated its fiftieth anniversary with readings, a quiz for children and a cake shaped like a stack of novels. The owner, who took over the shop from her parents, said that loyal customers and a growing interest in local history had kept the business alive through difficult years.",
    "Scientists studying the coastal wetlands have counted more wading birds this winter than in any year since records began. They believe that the restoration of old salt marshes, together with a ban on motorboats in the inner lagoon, has given the birds quieter places to feed and rest during the coldest months.",
    "The city council approved a plan to plant two thousand trees along the main avenues over the next five years. Supporters argue that the trees will cool the streets in summer, absorb rainwater and make walking more pleasant. Critics worry about the cost of maintenance and the roots damaging pavements and underground cables.",
    "For the first time in a decade, the annual rowing race between the two neighbouring villages ended in a draw. Judges reviewed the photographs for almost an hour before declaring that both boats had crossed the line at the same moment. The crews agreed to share the trophy and to meet again next year for a decisive rematch.",
    "A new exhibition at the maritime museum tells the story of the lighthouse keepers who lived on the rocky islands off the coast. Letters, logbooks and photographs show how families spent months in isolation, keeping the lamps burning through fog and gales, and how radio and automation finally made their work unnecessary.",
    "Farmers in the valley report that the late frost in April damaged a large part of the apple blossom. Some orchards expect to harvest less than half of a normal crop. Agricultural advisers recommend that growers consider frost protection systems, such as wind machines or sprinklers, which have proved effective in other regions.",
    "The library has extended its opening hours on weekday evenings after a survey showed that many students and working adults could not visit during the day. It will also lend laptops and portable internet devices to people who do not have them at home, a service that proved popular during a trial last autumn.",
    "Volunteers cleared more than two tonnes of litter from the beaches during the spring clean-up weekend. Plastic bottles, fishing nets and food packaging made up most of the rubbish. Organisers hope that the figures will persuade nearby businesses to reduce single-use packaging and to support more recycling points along the seafront.",
    "The old railway line that once carried coal from the hills to the port has been turned into a cycling and walking path. Along the twenty kilometres of the route, information boards explain the history of the mines, the stations and the people who worked there, and several cafés have opened in former station buildings.",
    "Doctors at the district hospital have started a programme that sends nurses to visit elderly patients at home after they leave hospital. Early results suggest that the visits help people recover more quickly and reduce the number who need to return to hospital within a month, which also frees beds for other patients.",
];

const FR: &[&str] = &[
    "Le petit village de montagne accueille chaque été des milliers de randonneurs venus découvrir ses sentiers et ses lacs. Les habitants ont restauré l'ancienne fromagerie, qui propose désormais des visites et des ateliers pour apprendre à fabriquer le fromage selon les méthodes traditionnelles transmises de génération en génération.",
    "La municipalité a décidé de rénover la place du marché afin de la rendre plus accueillante pour les piétons. Les travaux commenceront en septembre et dureront environ six mois. Pendant cette période, le marché hebdomadaire sera déplacé dans la rue voisine, et des panneaux indiqueront aux visiteurs le nouvel emplacement des commerçants.",
    "Une équipe de chercheurs de l'université étudie depuis plusieurs années la migration des saumons dans la rivière. Grâce à de petites balises électroniques, ils peuvent suivre le trajet des poissons jusqu'à la mer et mieux comprendre les obstacles qu'ils rencontrent, comme les barrages et la pollution de l'eau.",
    "La bibliothèque municipale organise tout au long de l'année des lectures pour les enfants, des rencontres avec des auteurs et des expositions de photographies anciennes. Son directeur souhaite en faire un lieu de vie ouvert à tous, où chacun peut venir lire, travailler ou simplement discuter autour d'un café.",
];

const DE: &[&str] = &[
    "Die kleine Stadt am Fluss hat in diesem Jahr ihr neues Schwimmbad eröffnet. Nach drei Jahren Bauzeit können Familien, Schulklassen und Vereine nun wieder das ganze Jahr über schwimmen. Der Bürgermeister betonte bei der Eröffnung, dass das Bad dank einer modernen Heizung deutlich weniger Energie verbraucht als das alte Gebäude.",
    "Im Stadtwald wurden in den vergangenen Monaten zahlreiche junge Bäume gepflanzt, um die Schäden der letzten trockenen Sommer auszugleichen. Förster setzen dabei auf eine Mischung aus Eichen, Buchen und Douglasien, die besser mit Hitze und Trockenheit zurechtkommen sollen als die bisher vorherrschenden Fichten.",
    "Die Volkshochschule bietet ab Herbst neue Kurse in Fotografie, Kochen und Programmieren an. Besonders gefragt sind die Abendkurse, die sich an Berufstätige richten. Anmeldungen sind ab sofort online und im Büro der Volkshochschule möglich, wobei für einige Kurse bereits lange Wartelisten bestehen.",
    "Ein Verein von Eisenbahnfreunden restauriert seit zehn Jahren eine alte Dampflokomotive. An den Wochenenden treffen sich die Mitglieder in der Werkstatt am Bahnhof, um Kessel, Räder und Führerstand in mühevoller Handarbeit wieder instand zu setzen. Im nächsten Sommer soll die Lokomotive zum ersten Mal wieder fahren.",
];

const ES: &[&str] = &[
    "El mercado central de la ciudad celebra este mes su centenario con conciertos, talleres de cocina y una exposición de fotografías antiguas. Los comerciantes recuerdan cómo ha cambiado el barrio a lo largo de los años y destacan la importancia de mantener vivo un lugar que reúne a vecinos de todas las edades.",
    "Un grupo de voluntarios ha recuperado un antiguo huerto abandonado a las afueras del pueblo. Ahora cultivan tomates, pimientos y calabacines, y enseñan a los niños de la escuela cómo cuidar las plantas. La cosecha se reparte entre las familias participantes y el comedor social de la comarca.",
    "La universidad ha puesto en marcha un programa para estudiar la calidad del aire en los barrios más transitados. Los investigadores instalarán sensores en farolas y edificios públicos, y publicarán los datos en tiempo real para que cualquier ciudadano pueda consultarlos y conocer mejor el aire que respira.",
    "El museo de la ciudad ha inaugurado una sala dedicada a la historia de la navegación en la costa. Maquetas de barcos, cartas náuticas e instrumentos antiguos muestran cómo los marineros se orientaban antes de la llegada de los satélites, y cómo el puerto se convirtió en el motor económico de la región.",
];

fn layout(site: &str, title: &str, body: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} | {site}</title>
<script>window.analytics = {{ track: function() {{}} }};</script>
<style>body {{ font-family: sans-serif; }}</style></head>
<body>
<header class="site-header"><a href="/">{site} home</a>
<nav class="menu"><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li><li><a href="/contact">Contact</a></li></ul></nav></header>
<main><article>
<h1>{title}</h1>
{body}
</article></main>
<aside class="sidebar"><h3>Popular</h3><ul><li><a href="/">Most read today</a></li></ul></aside>
<footer class="footer"><p>Copyright 2026 {site}. All rights reserved.</p><p><a href="/privacy">Privacy</a> · <a href="/cookies">Cookie settings</a></p></footer>
</body></html>"#
    )
}

fn paras(ps: &[&str]) -> String {
    ps.iter().map(|p| format!("<p>{p}</p>\n")).collect()
}

fn png(seed: u8, w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        image::Rgb([
            (x * 4) as u8 ^ seed,
            (y * 5) as u8,
            seed.wrapping_mul(37) ^ ((x + y) as u8),
        ])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .expect("encode png");
    out.into_inner()
}

const GALLERY: &[&str] = &[
    "Every autumn the hill above the village fills with kite flyers. Families bring home-made kites of paper and bamboo, while the club members unpack large stunt kites with long tails. When the wind turns westerly in the afternoon, dozens of kites hang over the slope at once, and walkers on the ridge path stop to watch them dip and climb.",
    "Our photographers spent a week along the coast road with one rule: no photograph before sunrise or after sunset. The pictures in this gallery show the harbour, the pier and the fields behind the dunes in the plain light of ordinary days, which the photographers say tells more about a place than the dramatic skies of postcards.",
    "The river valley below the ridge is quieter than the coast. Old stone bridges cross the river every few kilometres, most of them built by farmers who needed to bring carts to the market in town. A local history group has measured and photographed each bridge and is collecting stories about the families who used them.",
    "Walkers who follow the valley path in spring pass through orchards of apple and pear trees. The owners welcome visitors as long as they keep to the path and close the gates behind them. In May the blossom covers the branches so thickly that the trees look white from the opposite slope, and beekeepers move their hives into the fields.",
];

/// A picture that survives scaling (its pHash stays put when resized): overlapping flat
/// rectangles whose places and colours depend on `seed`, over a gradient; broadband like a
/// photograph's edges (smooth waves alone leave most DCT coefficients near zero, where the
/// pHash's median threshold is unstable).
pub fn picture(seed: u32, w: u32, h: u32) -> image::RgbImage {
    let rects: Vec<(f64, f64, f64, f64, [f64; 3])> = (0..14u32)
        .map(|k| {
            let r = |salt: u32| {
                f64::from(
                    seed.wrapping_mul(2_654_435_761)
                        .wrapping_add(k.wrapping_mul(40_503))
                        .wrapping_add(salt.wrapping_mul(97_531))
                        .rotate_left(k + salt)
                        % 1000,
                ) / 1000.0
            };
            let (x0, y0) = (r(1) * 0.8, r(2) * 0.8);
            (
                x0,
                y0,
                x0 + 0.1 + r(3) * 0.4,
                y0 + 0.1 + r(4) * 0.4,
                [r(5) * 255.0, r(6) * 255.0, r(7) * 255.0],
            )
        })
        .collect();
    image::RgbImage::from_fn(w, h, |x, y| {
        let (u, v) = (f64::from(x) / f64::from(w), f64::from(y) / f64::from(h));
        // a gradient under overlapping flat rectangles: broadband, like the edges of a photo
        let mut c = [60.0 + 120.0 * u, 80.0 + 100.0 * v, 140.0 - 60.0 * u];
        for (x0, y0, x1, y1, col) in &rects {
            if u >= *x0 && u < *x1 && v >= *y0 && v < *y1 {
                c = *col;
            }
        }
        // fine grain, like sensor noise and texture (so files are photo-sized)
        let n = f64::from(
            (x.wrapping_mul(73_856_093)
                ^ y.wrapping_mul(19_349_663)
                ^ seed.wrapping_mul(83_492_791))
                % 21,
        ) - 10.0;
        image::Rgb([
            (c[0] + n).clamp(0.0, 255.0) as u8,
            (c[1] + n).clamp(0.0, 255.0) as u8,
            (c[2] + n).clamp(0.0, 255.0) as u8,
        ])
    })
}

/// A JPEG of [`picture`].
pub fn jpeg(seed: u32, w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85)
        .encode_image(&picture(seed, w, h))
        .expect("encode jpeg");
    out
}

/// A copy of [`jpeg`]`(seed, w, h)` scaled to `nw` x `nh` (a re-published, resized photo).
fn jpeg_resized(seed: u32, w: u32, h: u32, nw: u32, nh: u32) -> Vec<u8> {
    let small = image::imageops::resize(
        &picture(seed, w, h),
        nw,
        nh,
        image::imageops::FilterType::Triangle,
    );
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 70)
        .encode_image(&small)
        .expect("encode jpeg");
    out
}

/// A PNG of deterministic noise (incompressible: about 3 bytes per pixel).
fn noise_png(w: u32, h: u32) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let img = image::RgbImage::from_fn(w, h, |_, _| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        image::Rgb([x as u8, (x >> 8) as u8, (x >> 16) as u8])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .expect("encode png");
    out.into_inner()
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for b in data {
        c ^= u32::from(*b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A decompression bomb: a valid PNG header declaring `side` x `side` pixels, followed by a
/// few hundred bytes of compressed zeros.
pub fn png_bomb(side: u32) -> Vec<u8> {
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut c = (data.len() as u32).to_be_bytes().to_vec();
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        c.extend_from_slice(&body);
        c.extend_from_slice(&crc32(&body).to_be_bytes());
        c
    };
    let mut ihdr = side.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&side.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    // zlib stream of 64 KiB of zeros (stored deflate would be large; a fixed-Huffman run is tiny)
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut z, &vec![0u8; 1 << 16]).expect("in memory");
    let idat = z.finish().expect("in memory");
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    out.extend(chunk(b"IHDR", &ihdr));
    out.extend(chunk(b"IDAT", &idat));
    out.extend(chunk(b"IEND", &[]));
    out
}

fn gif_pixel() -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(image::RgbImage::from_pixel(
        1,
        1,
        image::Rgb([255, 255, 255]),
    ))
    .write_to(&mut out, image::ImageFormat::Gif)
    .expect("encode gif");
    out.into_inner()
}

/// An image server for the captions benchmark: `hosts` sites, each serving `/img/0.jpg` to
/// `/img/{n-1}.jpg`: photos of 640x480 to 1280x960 (48 distinct pictures, so every URL still
/// costs a full fetch and decode), and a robots.txt that allows everything.
pub fn image_bench_sites(hosts: usize, n: usize) -> Vec<Site> {
    let sizes = [
        (640, 480),
        (800, 600),
        (1024, 768),
        (1280, 960),
        (960, 640),
        (600, 800),
    ];
    let pictures: Vec<Vec<u8>> = (0..48u32)
        .map(|i| {
            jpeg(
                i,
                sizes[i as usize % sizes.len()].0,
                sizes[i as usize % sizes.len()].1,
            )
        })
        .collect();
    (0..hosts)
        .map(|h| {
            let mut site = Site::new(&format!("images{h}"))
                .route("/robots.txt", Response::text("User-agent: *\nAllow: /\n"));
            for i in 0..n {
                site = site.route(
                    &format!("/img/{i}.jpg"),
                    Response::with_type(
                        200,
                        "image/jpeg",
                        pictures[(i * 7 + h) % pictures.len()].clone(),
                    ),
                );
            }
            site
        })
        .collect()
}

/// The gallery sites of the captions stage: `photos` (pages) and `cdn` (their images).
fn gallery_sites() -> Vec<Site> {
    let fig = |src: &str, alt: &str, extra: &str| {
        format!("<figure><img src=\"{src}\" alt=\"{alt}\"{extra}><figcaption>{alt}.</figcaption></figure>\n")
    };
    let kites = format!(
        "{}{}{}{}{}{}{}{}{}{}{}{}",
        paras(&[GALLERY[0]]),
        fig(
            "{{site:cdn}}/img/kite.jpg",
            "A red kite circling above the green hills at noon",
            " width=\"640\" height=\"480\""
        ),
        fig(
            "{{site:cdn}}/img/dot.gif",
            "A small marker beside the first photograph",
            ""
        ),
        fig("{{site:cdn}}/img/logo.png", "logo", ""),
        paras(&[GALLERY[1]]),
        fig(
            "{{site:cdn}}/img/pier.jpg",
            "The lighthouse at the end of the long pier",
            ""
        ),
        fig(
            "{{site:cdn}}/img/panorama.png",
            "A panorama of the whole bay at sunset",
            ""
        ),
        fig(
            "{{site:cdn}}/blocked/harbour.jpg",
            "Boats moored in the inner harbour basin",
            ""
        ),
        fig(
            "{{site:cdn}}/no-train/owl.jpg",
            "An owl sitting on a wooden fence post",
            ""
        ),
        fig(
            "{{site:cdn}}/img/ferry.jpg",
            "The morning ferry leaving the harbour",
            ""
        ),
        fig(
            "{{site:cdn}}/img/raw-scan.png",
            "A scanned page of the harbour master's logbook",
            ""
        ),
        paras(&[GALLERY[1].split(". ").next().unwrap_or_default()]),
    );
    let more = format!(
        "{}{}{}{}",
        paras(&[GALLERY[2]]),
        fig(
            "{{site:cdn}}/img/kite-small.jpg",
            "The same red kite, photographed from the path below",
            ""
        ),
        fig(
            "{{site:cdn}}/img/bridge.jpg",
            "An old stone bridge over a quiet river",
            ""
        ),
        paras(&[GALLERY[0].split(". ").last().unwrap_or_default()]),
    );
    let private = format!(
        "{}{}{}",
        paras(&[GALLERY[3]]),
        fig(
            "{{site:cdn}}/img/orchard.jpg",
            "Apple trees in blossom before the frost",
            ""
        ),
        paras(&[GALLERY[2].split(". ").next().unwrap_or_default()])
    );
    let photos = Site::new("photos")
        .route("/robots.txt", Response::text("User-agent: *\nAllow: /\n"))
        .route("/", Response::html(layout("photos", "Photo galleries", "<ul><li><a href=\"/gallery/kites.html\">Kites over the hills</a></li><li><a href=\"/gallery/more.html\">More from the valley</a></li><li><a href=\"/gallery/orchard.html\">The orchard</a></li></ul>")))
        .route("/gallery/kites.html", Response::html(layout("photos", "Kites over the hills", &kites)))
        .route("/gallery/more.html", Response::html(layout("photos", "More from the valley", &more)))
        .route("/gallery/orchard.html", Response::html(layout("photos", "The orchard", &private).replace("<meta charset=\"utf-8\">", "<meta charset=\"utf-8\"><meta name=\"robots\" content=\"noimageai\">")));
    let mut pier = jpeg(3, 400, 300);
    pier.truncate(pier.len() / 2);
    let img = |b: Vec<u8>| Response::with_type(200, "image/jpeg", b);
    let cdn = Site::new("cdn")
        .route("/robots.txt", Response::text("User-agent: *\nDisallow: /blocked/\n\nUser-agent: trawl-extended\nDisallow: /no-train/\n"))
        .route("/img/kite.jpg", img(jpeg(1, 640, 480)))
        .route("/img/kite-small.jpg", img(jpeg_resized(1, 640, 480, 320, 240)))
        .route("/img/bridge.jpg", img(jpeg(2, 480, 360)))
        .route("/img/pier.jpg", img(pier))
        .route("/img/ferry.jpg", img(jpeg(4, 500, 375)).header("X-Robots-Tag", "noimageai"))
        .route("/img/orchard.jpg", img(jpeg(5, 400, 300)))
        .route("/blocked/harbour.jpg", img(jpeg(6, 400, 300)))
        .route("/no-train/owl.jpg", img(jpeg(7, 400, 300)))
        .route("/img/logo.png", Response::with_type(200, "image/png", png(9, 120, 40)))
        .route("/img/dot.gif", Response::with_type(200, "image/gif", gif_pixel()))
        .route("/img/panorama.png", Response::with_type(200, "image/png", png_bomb(100_000)))
        .route("/img/raw-scan.png", Response::with_type(200, "image/png", noise_png(900, 800)));
    vec![photos, cdn]
}

fn article(i: usize) -> (String, String) {
    let title = format!("Town report {}", i + 1);
    let a = EN[i % EN.len()];
    let b = EN[(i + 3) % EN.len()];
    let c = EN[(i + 7) % EN.len()];
    let body = format!(
        "<p class=\"byline\">By the newsroom</p>\n{}<figure><img src=\"/img/photo{i}.png\" alt=\"Photograph for report {}: the harbour at dawn\" width=\"96\" height=\"64\"><figcaption>The harbour, seen from the quay.</figcaption></figure>\n{}<p>Read also: <a href=\"/articles/{}.html\">the next report</a>, <a href=\"{{{{site:wiki}}}}/es/mercado.html\">el mercado</a>.</p>",
        paras(&[a, b]),
        i + 1,
        paras(&[c]),
        (i + 1) % 6
    );
    (title, body)
}

/// The demo sites.
pub fn sites() -> Vec<Site> {
    let mut news = Site::new("news").route(
        "/robots.txt",
        Response::text("User-agent: *\nDisallow: /private/\n\nUser-agent: trawl-extended\nDisallow: /no-train/\n\nSitemap: {{site:news}}/sitemap_index.xml\n"),
    );
    // a sitemap index pointing to a gzip sitemap, which lists a page no link leads to
    let mut urlset = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">");
    for i in 0..6 {
        urlset.push_str(&format!(
            "<url><loc>{{{{site:news}}}}/articles/{i}.html</loc></url>"
        ));
    }
    urlset.push_str("<url><loc>{{site:news}}/archive/harbour-history.html</loc></url></urlset>");
    news = news
        .route("/sitemap_index.xml", Response::with_type(200, "application/xml", b"<?xml version=\"1.0\"?><sitemapindex><sitemap><loc>{{site:news}}/sitemaps/articles.xml</loc></sitemap></sitemapindex>".to_vec()))
        .route("/sitemaps/articles.xml", Response::with_type(200, "application/xml", urlset.into_bytes()))
        .route("/archive/harbour-history.html", Response::html(layout("news", "From the archive: the harbour", &paras(&[EN[6], EN[1]]))));
    let mut index = String::from("<p>Today's reports from the coast.</p><ul>");
    for i in 0..6 {
        index.push_str(&format!(
            "<li><a href=\"/articles/{i}.html\">Town report {}</a></li>",
            i + 1
        ));
    }
    index.push_str("<li><a href=\"/private/draft.html\">Draft (private)</a></li><li><a href=\"/no-train/opinion.html\">Opinion</a></li>");
    index.push_str("<li><a href=\"{{site:blog}}/\">Our partner blog</a></li><li><a href=\"{{site:shop}}/\">Shop</a></li><li><a href=\"{{site:broken}}/\">Archive</a></li><li><a href=\"{{site:photos}}/\">Photo galleries</a></li></ul>");
    news = news.route("/", Response::html(layout("news", "Coastal news", &index)));
    for i in 0..6 {
        let (t, b) = article(i);
        let mut page = Response::html(layout("news", &t, &b));
        if i == 5 {
            // a page-level opt-out sent as a header
            page = page.header("X-Robots-Tag", "noai");
        }
        news = news.route(&format!("/articles/{i}.html"), page);
        news = news.route(
            &format!("/img/photo{i}.png"),
            Response::with_type(200, "image/png", png(i as u8 * 40, 96, 64)),
        );
    }
    news = news
        .route(
            "/private/draft.html",
            Response::html(layout("news", "Draft", &paras(&[EN[0]]))),
        )
        .route(
            "/no-train/opinion.html",
            Response::html(layout(
                "news",
                "Opinion: why the breakwater matters",
                &paras(&[EN[9], EN[10]]),
            )),
        );

    let mut blog =
        Site::new("blog").route("/robots.txt", Response::text("User-agent: *\nAllow: /\n"));
    let blog_index = "<ul><li><a href=\"/fr/village.html\">Le village</a></li><li><a href=\"/fr/recherche.html\">La recherche</a></li>\
        <li><a href=\"/de/stadt.html\">Die Stadt</a></li><li><a href=\"/de/verein.html\">Der Verein</a></li><li><a href=\"/copy.html\">Shared story</a></li></ul>";
    blog = blog
        .route("/", Response::html(layout("blog", "A blog in many languages", blog_index)))
        .route("/fr/village.html", Response::html(layout("blog", "Le village", &paras(&[FR[0], FR[1]])).replace("lang=\"en\"", "lang=\"fr\"")))
        .route("/fr/recherche.html", Response::html(layout("blog", "La recherche", &paras(&[FR[2], FR[3]])).replace("lang=\"en\"", "lang=\"fr\"").replace("<meta charset=\"utf-8\">", "<meta charset=\"utf-8\"><meta name=\"robots\" content=\"noindex, follow\">")))
        .route("/de/stadt.html", Response::html(layout("blog", "Die Stadt", &paras(&[DE[0], DE[1]])).replace("lang=\"en\"", "lang=\"de\"")))
        .route("/de/verein.html", Response::html(layout("blog", "Der Verein", &paras(&[DE[2], DE[3]])).replace("lang=\"en\"", "lang=\"de\"")));
    // A verbatim copy of a news article: the exact-dedup stage must drop one of the two.
    let (t, b) = article(2);
    blog = blog.route("/copy.html", Response::html(layout("news", &t, &b)));

    let wiki_table = "<table><tr><th>Año</th><th>Visitantes</th></tr><tr><td>2024</td><td>120000</td></tr><tr><td>2025</td><td>135000</td></tr></table>";
    let wiki = Site::new("wiki")
        .route("/robots.txt", Response::text("User-agent: *\nDisallow: /w/edit\nCrawl-delay: 0\n"))
        .route("/", Response::redirect(301, "/es/"))
        .route("/es/", Response::html(layout("wiki", "Portada", "<ul><li><a href=\"/es/mercado.html\">Mercado</a></li><li><a href=\"/es/huerto.html\">Huerto</a></li><li><a href=\"/es/museo.html\">Museo</a></li><li><a href=\"/missing.html\">Página perdida</a></li><li><a href=\"/w/edit?page=1\">Editar</a></li><li><a href=\"/en/trains.html\">Trains</a></li></ul>")))
        .route("/es/mercado.html", Response::html(layout("wiki", "Mercado central", &format!("{}{}", paras(&[ES[0]]), wiki_table))))
        .route("/es/huerto.html", Response::html(layout("wiki", "El huerto", &paras(&[ES[1], ES[2]]))))
        .route("/es/museo.html", Response::html(layout("wiki", "El museo", &paras(&[ES[3]]))).delayed(Duration::from_millis(150)))
        .route("/en/trains.html", Response::html(layout("wiki", "The railway path", &format!("{}<ul><li>Length: twenty kilometres</li><li>Surface: gravel and tarmac</li></ul>", paras(&[EN[10], EN[11]])))));

    let shop = Site::new("shop")
        .route(
            "/robots.txt",
            Response::text("User-agent: *\nDisallow: /\n"),
        )
        .route(
            "/",
            Response::html(layout("shop", "Shop", &paras(&[EN[4]]))),
        );

    let broken = Site::new("broken")
        .route("/robots.txt", Response::status(503))
        .route(
            "/",
            Response::html(layout("broken", "Archive", &paras(&[EN[5]]))),
        );

    let mut all = vec![news, blog, wiki, shop, broken];
    all.extend(gallery_sites());
    all
}

/// Seed URLs of the demo web.
pub fn seeds(web: &crate::TestWeb) -> Vec<String> {
    ["news", "wiki"]
        .iter()
        .filter_map(|n| web.base_url(n))
        .map(|b| format!("{b}/"))
        .collect()
}

/// The links of bench page `i` on host `h`: eight pages of the same host, then the same
/// page on the next host.
fn bench_links(h: usize, i: usize, hosts: usize, pages: usize) -> Vec<String> {
    (1..=8)
        .map(|k| format!("/p/{}", (i * 8 + k) % pages))
        .chain([format!("{{{{site:h{}}}}}/p/{i}", (h + 1) % hosts)])
        .collect()
}

/// A generated web for benchmarks: `hosts` sites of `pages` pages, each page about 300 words
/// with links to 8 pages of its own site and one page of the next site, robots.txt allowing
/// everything. Page `0` of each site is its seed (`/`).
pub fn bench_sites(hosts: usize, pages: usize) -> Vec<Site> {
    (0..hosts)
        .map(|h| {
            let mut site = Site::new(&format!("h{h}"))
                .route("/robots.txt", Response::text("User-agent: *\nAllow: /\n"));
            for i in 0..pages {
                let mut body = paras(&[
                    EN[(i + h) % EN.len()],
                    EN[(i * 3 + h + 1) % EN.len()],
                    EN[(i * 7 + h + 2) % EN.len()],
                ]);
                body.push_str("<ul>");
                for href in bench_links(h, i, hosts, pages) {
                    let label = href
                        .strip_prefix("/p/")
                        .map_or("next site".to_string(), |n| format!("page {n}"));
                    body.push_str(&format!("<li><a href=\"{href}\">{label}</a></li>"));
                }
                body.push_str("</ul>");
                let page = Response::html(layout(&format!("h{h}"), &format!("Page {i}"), &body));
                site = site.route(&format!("/p/{i}"), page.clone());
                if i == 0 {
                    site = site.route("/", page);
                }
            }
            site
        })
        .collect()
}

/// A `<ul>` of links, each labelled with its own URL.
fn link_list(links: &[String]) -> String {
    let items: String = links
        .iter()
        .map(|l| format!("<li><a href=\"{l}\">{l}</a></li>"))
        .collect();
    format!("<ul>{items}</ul>")
}

/// The mixed web of the render benchmark: like [`bench_sites`], but one page in five is a
/// client-side app (an empty `#root` that `/app.js` fills from `/data/p/N`, JSON fetched by
/// XHR), one in ten a listing with more items behind a "Load more" button, one in twenty a
/// log whose entries load on scroll, and one in ten a static page carrying a large analytics
/// bundle (text present: not rendered). Everything else is plain static HTML.
pub fn render_bench_sites(hosts: usize, pages: usize) -> Vec<Site> {
    const APP_JS: &str = "fetch('/data' + location.pathname).then(r => r.json()).then(d => {
  const root = document.getElementById('root');
  root.innerHTML = '<h1>' + d.title + '</h1>' + d.paras.map(p => '<p>' + p + '</p>').join('') +
    '<ul>' + d.links.map(l => '<li><a href=\"' + l + '\">' + l + '</a></li>').join('') + '</ul>';
});";
    bench_sites(hosts, pages)
        .into_iter()
        .enumerate()
        .map(|(h, mut site)| {
            site = site.route("/app.js", Response::with_type(200, "application/javascript", APP_JS.as_bytes().to_vec()));
            site = site.route("/analytics.js", Response::with_type(200, "application/javascript", "window.dataLayer = [];".repeat(2000).into_bytes()));
            for i in 0..pages {
                let links = bench_links(h, i, hosts, pages);
                if i % 5 == 1 {
                    let shell = format!("<!doctype html><html><head><title>App {i}</title></head><body><div id=\"root\"></div><script src=\"/app.js\"></script></body></html>");
                    let data = serde_json::json!({
                        "title": format!("Page {i}"),
                        "paras": [EN[(i + h) % EN.len()], EN[(i * 3 + h + 1) % EN.len()], EN[(i * 7 + h + 2) % EN.len()]],
                        "links": links,
                    });
                    site = site.route(&format!("/p/{i}"), Response::html(shell));
                    site = site.route(&format!("/data/p/{i}"), Response::with_type(200, "application/json", data.to_string().into_bytes()));
                } else if i % 10 == 7 {
                    // a listing whose further items arrive behind a "Load more" button
                    let mut body = paras(&[EN[(i + h) % EN.len()]]);
                    body.push_str(&link_list(&links));
                    body.push_str(&format!("<div id=\"more-items\"></div><button type=\"button\" id=\"more\">Load more</button><script>document.getElementById('more').addEventListener('click', () => fetch('/more/p/{i}').then(r => r.text()).then(t => document.getElementById('more-items').insertAdjacentHTML('beforeend', t)));</script>"));
                    site = site.route(&format!("/p/{i}"), Response::html(layout(&format!("h{h}"), &format!("Page {i}"), &body)));
                    site = site.route(&format!("/more/p/{i}"), Response::html(paras(&[EN[(i * 3 + h + 1) % EN.len()], EN[(i * 7 + h + 2) % EN.len()]])));
                } else if i % 20 == 9 {
                    // a log whose entries arrive as the reader scrolls to the bottom
                    let mut body = paras(&[EN[(i + h) % EN.len()]]);
                    body.push_str(&link_list(&links));
                    body.push_str(&format!("<div style=\"height:1400px\"></div><div id=\"log\"></div><script>let n = 0, busy = false; window.addEventListener('scroll', () => {{ if (busy || n >= 2) return; if (window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 200) {{ busy = true; n++; fetch('/log/p/{i}?n=' + n).then(r => r.text()).then(t => {{ const d = document.createElement('div'); d.style.minHeight = '1400px'; d.innerHTML = t; document.getElementById('log').appendChild(d); busy = false; }}); }} }});</script>"));
                    site = site.route(&format!("/p/{i}"), Response::html(layout(&format!("h{h}"), &format!("Page {i}"), &body)));
                    site = site.route(&format!("/log/p/{i}?n=1"), Response::html(paras(&[EN[(i * 3 + h + 1) % EN.len()]])));
                    site = site.route(&format!("/log/p/{i}?n=2"), Response::html(paras(&[EN[(i * 7 + h + 2) % EN.len()]])));
                } else if i % 10 == 3 {
                    let mut body = paras(&[EN[(i + h) % EN.len()], EN[(i * 5 + h + 3) % EN.len()]]);
                    body.push_str("<script src=\"/analytics.js\"></script>");
                    body.push_str(&link_list(&links));
                    site = site.route(&format!("/p/{i}"), Response::html(layout(&format!("h{h}"), &format!("Page {i}"), &body)));
                }
            }
            site
        })
        .collect()
}

//! Icons: inline SVG from a maintained set (`icondata`'s Lucide icons through `leptos_icons`),
//! never a symbol that needs an installed font (a stock Linux machine has no emoji font and
//! showed "□ Sound off"; issue #32). Decorative here: the control that holds one names itself
//! (its text or `aria-label`).

pub use icondata::Icon as IconData;
use leptos::prelude::*;

/// A decorative icon, sized to the text beside it.
#[component]
pub fn Icon(icon: IconData) -> impl IntoView {
    view! {
        <span class="icon" aria-hidden="true"><leptos_icons::Icon icon=icon /></span>
    }
}

/// The icons the app uses, by what they mean.
pub mod icons {
    pub use icondata::{
        LuBell as SOUND_ON, LuBellOff as SOUND_OFF, LuChevronDown as EXPANDED,
        LuChevronRight as COLLAPSED, LuEllipsis as MORE, LuMenu as MENU, LuPin as PINNED,
    };
}
